//! HTTP/1.1 plumbing shared by the peers, the floor relay and the load generator: an accept
//! loop serving a function, and one keep-alive client connection.

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::client::conn::http1::SendRequest;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use tokio::net::{TcpListener, TcpStream};

/// Serves `handler` on every connection accepted by `listener`, forever.
pub async fn serve<F, Fut, B>(listener: TcpListener, handler: F)
where
    F: Fn(Request<Incoming>) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Response<B>> + Send + 'static,
    B: hyper::body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let handler = Arc::new(handler);
    loop {
        let Ok((stream, _)) = listener.accept().await else { continue };
        let _ = stream.set_nodelay(true);
        let handler = handler.clone();
        tokio::spawn(async move {
            let svc = service_fn(move |req| {
                let h = handler.clone();
                async move { Ok::<_, Infallible>(h(req).await) }
            });
            let _ =
                hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), svc).await;
        });
    }
}

/// One keep-alive HTTP/1.1 client connection to `127.0.0.1:port`.
pub async fn connect(port: u16) -> std::io::Result<SendRequest<Full<Bytes>>> {
    let stream = TcpStream::connect(("127.0.0.1", port)).await?;
    stream.set_nodelay(true)?;
    let (sender, conn) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.map_err(std::io::Error::other)?;
    tokio::spawn(async move {
        let _ = conn.await;
    });
    Ok(sender)
}

/// A whole response body (for small control answers, not for measured paths).
pub async fn body_bytes(body: Incoming) -> Result<Bytes, hyper::Error> {
    use http_body_util::BodyExt;
    Ok(body.collect().await?.to_bytes())
}
