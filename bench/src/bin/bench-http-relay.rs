//! The floor of the A2A workload: a minimal HTTP/1.1 reverse relay (pooled keep-alive client,
//! bodies streamed through untouched, no parsing). `bench-http-relay LISTEN_PORT UPSTREAM_PORT`.

use blindfold_bench::http::serve;
use http_body_util::BodyExt;
use hyper::Response;
use hyper::body::Incoming;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;

#[tokio::main]
async fn main() {
    let args: Vec<u16> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let [listen, upstream] = args[..] else {
        eprintln!("usage: bench-http-relay LISTEN_PORT UPSTREAM_PORT");
        std::process::exit(64);
    };
    let client: Client<_, Incoming> = Client::builder(TokioExecutor::new()).build_http();
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", listen)).await.expect("bind");
    serve(listener, move |mut req: hyper::Request<Incoming>| {
        let client = client.clone();
        async move {
            let path = req.uri().path_and_query().map_or("/", |p| p.as_str());
            let uri = format!("http://127.0.0.1:{upstream}{path}").parse().expect("upstream uri");
            *req.uri_mut() = uri;
            match client.request(req).await {
                Ok(resp) => resp.map(|b| b.boxed()),
                Err(e) => Response::builder()
                    .status(502)
                    .body(http_body_util::Full::from(e.to_string()).map_err(|n| match n {}).boxed())
                    .expect("response"),
            }
        }
    })
    .await;
}
