//! The bounded body readers against a real HTTP/1.1 exchange on loopback (the whole body, in
//! however many chunks it comes, and the size limit), and the header allowlists against the
//! copy they replaced.

use super::upstream::{
    REQUEST_HEADERS, RESPONSE_HEADERS, Upstream, UpstreamError, copy_oracle, copy_request_headers,
    copy_response_headers, read_body, read_body_bytes,
};
use axum::body::Bytes;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method};
use proptest::prelude::*;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Serves one request with `chunks` as a chunked body (each chunk written on its own) and
/// returns the upstream's answer.
async fn answer(chunks: Vec<Vec<u8>>) -> hyper::Response<hyper::body::Incoming> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("addr").port();
    tokio::spawn(async move {
        let (mut s, _) = listener.accept().await.expect("accept");
        let mut head = Vec::new();
        let mut buf = [0u8; 1024];
        while !head.windows(4).any(|w| w == b"\r\n\r\n") {
            let n = s.read(&mut buf).await.expect("read");
            assert!(n > 0, "request ended early");
            head.extend_from_slice(&buf[..n]);
        }
        s.write_all(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n").await.expect("head");
        for c in chunks.iter().filter(|c| !c.is_empty()) {
            s.write_all(format!("{:x}\r\n", c.len()).as_bytes()).await.expect("size");
            s.write_all(c).await.expect("chunk");
            s.write_all(b"\r\n").await.expect("crlf");
            s.flush().await.expect("flush");
        }
        s.write_all(b"0\r\n\r\n").await.expect("end");
    });
    let up = Upstream::new(Duration::from_secs(30));
    let url = format!("http://127.0.0.1:{port}/");
    up.send(Method::GET, &url, HeaderMap::new(), Bytes::new()).await.expect("answer")
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Both readers return the body's bytes, or both refuse it past `max`.
    #[test]
    fn bytes_reader_agrees_with_the_vec_reader(
        chunks in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..40), 0..5),
        max in 0usize..120,
    ) {
        let whole: Vec<u8> = chunks.concat();
        let rt = runtime();
        let t = Duration::from_secs(30);
        let (as_bytes, as_vec) = rt.block_on(async {
            let mut a = answer(chunks.clone()).await;
            let mut b = answer(chunks.clone()).await;
            (read_body_bytes(a.body_mut(), max, t).await, read_body(b.body_mut(), max, t).await)
        });
        match (as_bytes, as_vec) {
            (Ok(x), Ok(y)) => {
                prop_assert_eq!(x.as_ref(), whole.as_slice());
                prop_assert_eq!(y, whole);
            }
            (Err(UpstreamError::TooLarge(a)), Err(UpstreamError::TooLarge(b))) => {
                prop_assert_eq!((a, b), (max, max));
                prop_assert!(whole.len() > max);
            }
            (x, y) => prop_assert!(false, "readers disagree: {:?} / {:?}", x.map(|b| b.len()), y.map(|v| v.len())),
        }
    }
}

/// Header names a request or answer may carry: every allowlisted one, and others.
const NAMES: [&str; 16] = [
    "content-type",
    "accept",
    "authorization",
    "mcp-session-id",
    "a2a-version",
    "a2a-extensions",
    "traceparent",
    "last-event-id",
    "cache-control",
    "host",
    "content-length",
    "user-agent",
    "x-vendor",
    "server",
    "cookie",
    "mcp-method",
];

fn headers(entries: &[(usize, String)]) -> HeaderMap {
    let mut m = HeaderMap::new();
    for (n, v) in entries {
        let name = HeaderName::from_static(NAMES[n % NAMES.len()]);
        m.append(name, HeaderValue::from_str(v).expect("visible ascii"));
    }
    m
}

fn in_order(m: &HeaderMap) -> Vec<(String, Vec<u8>)> {
    m.iter().map(|(k, v)| (k.as_str().to_owned(), v.as_bytes().to_vec())).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// The same headers, values and order as looking up every allowed name.
    #[test]
    fn allowlist_copies_agree_with_the_lookup_of_every_name(
        entries in proptest::collection::vec((0usize..16, "[a-z0-9 ]{0,6}"), 0..12),
    ) {
        let m = headers(&entries);
        prop_assert_eq!(in_order(&copy_request_headers(&m)), in_order(&copy_oracle(&m, &REQUEST_HEADERS)));
        prop_assert_eq!(in_order(&copy_response_headers(&m)), in_order(&copy_oracle(&m, &RESPONSE_HEADERS)));
    }
}
