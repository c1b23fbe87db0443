use super::*;

fn request(headers: &[(&str, &str)]) -> Request<()> {
    let mut b = Request::builder().method("POST").uri("/mcp");
    for (k, v) in headers {
        b = b.header(*k, *v);
    }
    b.body(()).expect("request")
}

fn hygiene() -> Hygiene {
    Hygiene::new(vec!["blindfold.internal".into()], vec!["https://console.example".into()])
}

#[test]
fn loopback_and_configured_hosts_pass_others_are_403() {
    for host in ["127.0.0.1:7700", "localhost", "[::1]:7700", "Blindfold.Internal:80"] {
        assert!(hygiene().admit(&request(&[("host", host)])).is_ok(), "{host}");
    }
    let refused = hygiene().admit(&request(&[("host", "evil.example.com:7700")])).expect_err("refused");
    assert_eq!(refused, Refusal::HostNotAllowed("evil.example.com:7700".into()));
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    assert_eq!(hygiene().admit(&request(&[])).expect_err("no host"), Refusal::MissingHost);
    let two = request(&[("host", "127.0.0.1"), ("host", "evil.example.com")]);
    assert_eq!(hygiene().admit(&two).expect_err("two hosts"), Refusal::SeveralHosts);
}

#[test]
fn an_absolute_target_names_a_host_too() {
    let r = Request::builder()
        .uri("http://evil.example.com/mcp")
        .header("host", "127.0.0.1")
        .body(())
        .expect("r");
    assert!(matches!(hygiene().admit(&r), Err(Refusal::HostNotAllowed(_))));
}

#[test]
fn origins_loopback_or_configured_one_only() {
    for origin in ["http://localhost:6274", "http://127.0.0.1", "https://console.example"] {
        assert!(hygiene().admit(&request(&[("host", "localhost"), ("origin", origin)])).is_ok(), "{origin}");
    }
    for origin in
        ["http://evil.example.com", "null", "https://console.example.evil", "http://console.example"]
    {
        let refused =
            hygiene().admit(&request(&[("host", "localhost"), ("origin", origin)])).expect_err(origin);
        assert!(matches!(refused, Refusal::OriginNotAllowed(_)), "{origin}: {refused:?}");
    }
    // The first Origin is allowed: a second one, whatever it says, is refused.
    let two =
        request(&[("host", "localhost"), ("origin", "http://localhost:1"), ("origin", "http://localhost:1")]);
    assert_eq!(hygiene().admit(&two).expect_err("two origins"), Refusal::SeveralOrigins);
}

#[test]
fn a_body_must_be_json() {
    let ok =
        [("host", "localhost"), ("content-length", "2"), ("content-type", "application/json; charset=utf-8")];
    assert!(hygiene().admit(&request(&ok)).is_ok());
    let a2a = [("host", "localhost"), ("content-length", "2"), ("content-type", "application/a2a+json")];
    assert!(hygiene().admit(&request(&a2a)).is_ok());
    let plain = [("host", "localhost"), ("content-length", "2"), ("content-type", "text/plain")];
    let refused = hygiene().admit(&request(&plain)).expect_err("text/plain");
    assert_eq!(refused, Refusal::NotJson(Some("text/plain".into())));
    assert_eq!(refused.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let chunked = [("host", "localhost"), ("transfer-encoding", "chunked")];
    assert_eq!(hygiene().admit(&request(&chunked)).expect_err("no type"), Refusal::NotJson(None));
    // No body, no type needed (a GET, a DELETE, an empty POST).
    assert!(hygiene().admit(&request(&[("host", "localhost"), ("content-length", "0")])).is_ok());
}

#[test]
fn json_media_types() {
    for t in ["application/json", "Application/JSON", "application/a2a+json", "application/problem+json; x=y"]
    {
        assert!(is_json_media_type(t), "{t}");
    }
    for t in [
        "text/plain",
        "application/+json",
        "text/json",
        "application/jsonx",
        "application/x-www-form-urlencoded",
        "",
    ] {
        assert!(!is_json_media_type(t), "{t}");
    }
}

#[test]
fn cors_for_the_admitted_origin_replaces_the_upstreams() {
    let admitted =
        hygiene().admit(&request(&[("host", "localhost"), ("origin", "http://localhost:6274")])).expect("ok");
    let mut upstream = Response::new(Body::empty());
    upstream.headers_mut().insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    upstream.headers_mut().insert(header::ACCESS_CONTROL_ALLOW_CREDENTIALS, HeaderValue::from_static("true"));
    let out = admitted.finish(upstream);
    assert_eq!(out.headers()[header::ACCESS_CONTROL_ALLOW_ORIGIN], "http://localhost:6274");
    assert!(out.headers().get(header::ACCESS_CONTROL_ALLOW_CREDENTIALS).is_none());
    assert!(
        out.headers()[header::ACCESS_CONTROL_EXPOSE_HEADERS]
            .to_str()
            .unwrap_or("")
            .contains("mcp-session-id")
    );
    let none = hygiene().admit(&request(&[("host", "localhost")])).expect("ok");
    let mut upstream = Response::new(Body::empty());
    upstream.headers_mut().insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    assert!(none.finish(upstream).headers().get(header::ACCESS_CONTROL_ALLOW_ORIGIN).is_none());
}

#[test]
fn a_preflight_is_answered_204() {
    let r = Request::builder()
        .method("OPTIONS")
        .uri("/mcp")
        .header("host", "localhost:7700")
        .header("origin", "http://localhost:6274")
        .header("access-control-request-method", "POST")
        .header("access-control-request-headers", "content-type, mcp-session-id")
        .body(())
        .expect("r");
    let admitted = hygiene().admit(&r).expect("ok");
    let answer = admitted.options_answer(&r).expect("options");
    assert_eq!(answer.status(), StatusCode::NO_CONTENT);
    let h = answer.headers();
    assert_eq!(h[header::ACCESS_CONTROL_ALLOW_ORIGIN], "http://localhost:6274");
    assert!(h[header::ACCESS_CONTROL_ALLOW_METHODS].to_str().unwrap_or("").contains("POST"));
    assert_eq!(h[header::ACCESS_CONTROL_ALLOW_HEADERS], "content-type, mcp-session-id");
    assert!(admitted.options_answer(&request(&[("host", "localhost")])).is_none());
}

#[test]
fn a_refusal_is_a_json_rpc_error_with_its_status() {
    let r = Refusal::OriginNotAllowed("http://evil.example.com".into()).into_response();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    assert_eq!(r.headers()[header::CONTENT_TYPE], "application/json");
}

#[tokio::test]
async fn a_refusal_on_an_a2a_rest_operation_is_that_bindings_error() {
    use http_body_util::BodyExt;
    let body = |r: Response| async move {
        let bytes = r.into_body().collect().await.expect("body").to_bytes();
        serde_json::from_slice::<serde_json::Value>(&bytes).expect("json")
    };
    let refusal = Refusal::NotJson(Some("text/plain".into()));
    let rest = refusal.clone().answer_for("/a2a/agent-a/message:send");
    assert_eq!(rest.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let v = body(rest).await;
    assert_eq!(v["error"]["code"], 415, "{v}");
    assert_eq!(v["error"]["details"][0]["reason"], "CONTENT_TYPE_NOT_SUPPORTED", "{v}");
    let v = body(Refusal::SeveralOrigins.answer_for("/a2a/agent-a/message:send")).await;
    assert_eq!(v["error"]["details"][0]["reason"], "INVALID_REQUEST", "{v}");
    // On A2A's JSON-RPC binding a body that is not JSON is ContentTypeNotSupportedError; on MCP
    // (and for any other refusal) the plain invalid request.
    for (path, code) in [("/a2a/agent-a", -32005), ("/a2a/agent-a/", -32005), ("/mcp", -32600)] {
        let v = body(refusal.clone().answer_for(path)).await;
        assert_eq!(
            (v["jsonrpc"].clone(), v["error"]["code"].clone()),
            (serde_json::json!("2.0"), serde_json::json!(code)),
            "{path}: {v}"
        );
    }
    let v = body(Refusal::SeveralOrigins.answer_for("/a2a/agent-a")).await;
    assert_eq!(v["error"]["code"], -32600, "{v}");
}
