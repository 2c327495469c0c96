#!/usr/bin/env python3
"""Seeds for fuzz-http: request heads as scrapers send them (Prometheus's
Accept, curl's, HTTP/1.0), and hostile ones: other methods and versions,
absolute targets, bodies, folded and repeated fields, control bytes, a
head or a target past its bound, too many fields, blank lines first, bare
LFs, cut short.  Usage: make-http-seeds.py DIR"""
import os
import sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)

PROM = ('application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.6,'
        'application/openmetrics-text;version=0.0.1;q=0.5,text/plain;version=1.0.0;'
        'escaping=allow-utf-8;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2')


def req(line='GET /metrics HTTP/1.1', fields=('Host: 127.0.0.1:9464',), eol='\r\n', tail=''):
    return (line + eol + ''.join(f + eol for f in fields) + eol + tail).encode('latin-1')


seeds = {
    'prometheus': req(fields=('Host: 127.0.0.1:9464', 'User-Agent: Prometheus/3.0.0',
                              'Accept: ' + PROM, 'Accept-Encoding: gzip',
                              'X-Prometheus-Scrape-Timeout-Seconds: 10')),
    'curl': req(fields=('Host: localhost', 'User-Agent: curl/7.88.1', 'Accept: */*')),
    'http10-head': req('HEAD /metrics HTTP/1.0', ()),
    'keepalive-two': req(fields=('Host: x',)) * 2,
    'basic-auth': req(fields=('Host: x', 'Authorization: Basic dXNlcjpwYXNz')),
    'basic-auth-padded': req(fields=('Authorization: Basic YTpi',)),
    'basic-auth-bad64': req(fields=('Authorization: Basic ****',)),
    'basic-auth-nul': req(fields=('Authorization: Basic YQBiOmM=',)),
    'query': req('GET /metrics?name[]=a&x=%41 HTTP/1.1'),
    'bare-lf': req(eol='\n'),
    'blank-first': b'\r\n\r\n\n' + req(),
    'post': req('POST /metrics HTTP/1.1'),
    'lower-get': req('get /metrics HTTP/1.1'),
    'http2': req('GET / HTTP/2.0'),
    'http12': req('GET / HTTP/1.2'),
    'absolute': req('GET http://127.0.0.1/metrics HTTP/1.1'),
    'asterisk': req('OPTIONS * HTTP/1.1'),
    'no-host': req(fields=()),
    'two-hosts': req(fields=('Host: a', 'Host: b')),
    'body': req(fields=('Host: x', 'Content-Length: 5'), tail='abcde'),
    'chunked': req(fields=('Host: x', 'Transfer-Encoding: chunked'), tail='0\r\n\r\n'),
    'fold': req(fields=('Host: x', 'X: a', ' b')),
    'space-colon': req(fields=('Host : x',)),
    'control': req(fields=('Host: x', 'X: a\x01b')),
    'del': req(fields=('Host: x', 'X: a\x7f')),
    'nul-target': req('GET /a\x00b HTTP/1.1'),
    'high-bytes': req('GET /\xff\xfe HTTP/1.1', ('Host: \xc3\x28',)),
    'long-target': req('GET /' + 'a' * 1100 + ' HTTP/1.1'),
    'long-head': req(fields=('Host: x', 'X: ' + 'y' * 9000)),
    'many-fields': req(fields=['Host: x'] + ['X%d: y' % i for i in range(80)]),
    'only-crlf': b'\r\n' * 5000,
    'cut': req()[:30],
    'accept-odd': req(fields=('Host: x', 'Accept: ,,;;q=,;q=9.99999,application/openmetrics-text;q=0.',
                              'Accept: text/plain')),
    'accept-long': req(fields=('Host: x', 'Accept: ' + ','.join(['a/b;q=0.1'] * 600))),
}
for name, data in seeds.items():
    with open(os.path.join(out, name), 'wb') as f:
        f.write(data)
