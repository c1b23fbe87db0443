//! Decoding REST verbs and paths into the methods and params of the JSON-RPC binding, and the
//! REST error shape both ways.

use super::*;

fn r(verb: &str, path: &str) -> Result<Route, RouteError> {
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    route(verb, &segments)
}

fn method(verb: &str, path: &str) -> &'static str {
    r(verb, path).unwrap_or_else(|e| panic!("{verb} {path}: {e:?}")).method
}

#[test]
fn every_operation_of_the_binding_decodes_to_its_json_rpc_method() {
    let cases = [
        ("POST", "/message:send", "SendMessage"),
        ("POST", "/message:stream", "SendStreamingMessage"),
        ("GET", "/tasks/t-1", "GetTask"),
        ("GET", "/tasks", "ListTasks"),
        ("POST", "/tasks/t-1:cancel", "CancelTask"),
        ("POST", "/tasks/t-1:subscribe", "SubscribeToTask"),
        ("GET", "/tasks/t-1:subscribe", "SubscribeToTask"),
        ("POST", "/tasks/t-1/pushNotificationConfigs", "CreateTaskPushNotificationConfig"),
        ("GET", "/tasks/t-1/pushNotificationConfigs", "ListTaskPushNotificationConfigs"),
        ("GET", "/tasks/t-1/pushNotificationConfigs/c-1", "GetTaskPushNotificationConfig"),
        ("DELETE", "/tasks/t-1/pushNotificationConfigs/c-1", "DeleteTaskPushNotificationConfig"),
        ("GET", "/extendedAgentCard", "GetExtendedAgentCard"),
    ];
    for (verb, path, want) in cases {
        assert_eq!(method(verb, path), want, "{verb} {path}");
        // Every one is a method of v1.0, so it is gated like its JSON-RPC twin.
        assert!(crate::a2a::Version::V1_0.knows(want), "{want}");
        let tenanted = format!("/acme{path}");
        let got = r(verb, &tenanted).expect("tenant prefix");
        assert_eq!((got.method, got.tenant.as_deref()), (want, Some("acme")), "{verb} {tenanted}");
    }
}

#[test]
fn the_path_names_the_task_and_config_ids() {
    let got = r("POST", "/tasks/held-00ff:cancel").expect("cancel");
    assert_eq!(got.task_id.as_deref(), Some("held-00ff"));
    // A colon that is no verb suffix belongs to the id.
    assert_eq!(r("GET", "/tasks/a:b").expect("get").task_id.as_deref(), Some("a:b"));
    let got = r("DELETE", "/tasks/t/pushNotificationConfigs/c").expect("delete");
    assert_eq!((got.task_id.as_deref(), got.config_id.as_deref()), (Some("t"), Some("c")));
}

#[test]
fn unknown_paths_and_wrong_verbs_are_refused() {
    for path in ["/", "/message", "/message:sent", "/tasks/t/other", "/a/b/c/d/e", "/tasks/:cancel", "/v1/x"]
    {
        assert_eq!(r("POST", path), Err(RouteError::NotFound), "{path}");
    }
    // Nothing that would name another path at the agent once forwarded.
    for segments in [&["..", "message:send"][..], &["tasks", "."], &["tasks", "a/../../admin"]] {
        assert_eq!(route("GET", segments), Err(RouteError::NotFound), "{segments:?}");
    }
    assert_eq!(r("GET", "/message:send"), Err(RouteError::MethodNotAllowed(&["POST"])));
    assert_eq!(r("DELETE", "/tasks/t-1"), Err(RouteError::MethodNotAllowed(&["GET"])));
    assert!(matches!(r("PUT", "/tasks/t:subscribe"), Err(RouteError::MethodNotAllowed(_))));
}

#[test]
fn params_take_the_body_then_the_query_and_the_path_ids_win() {
    let route = r("POST", "/tasks/t-path:cancel").expect("cancel");
    let body = json!({"id": "t-body", "metadata": {"k": 1}});
    let p = params(&route, &[], Some(body)).expect("params");
    assert_eq!(p, json!({"id": "t-path", "metadata": {"k": 1}}));
    let route = r("GET", "/tasks").expect("list");
    let q = [("contextId".to_owned(), "ctx 1".to_owned()), ("pageSize".to_owned(), "5".to_owned())];
    assert_eq!(params(&route, &q, None).expect("list"), json!({"contextId": "ctx 1", "pageSize": "5"}));
    let route = r("GET", "/tasks/t/pushNotificationConfigs/c").expect("get cfg");
    assert_eq!(params(&route, &[], None).expect("cfg"), json!({"taskId": "t", "id": "c"}));
    assert!(params(&route, &[], Some(json!([1]))).is_err(), "a body must be an object");
}

#[test]
fn a2a_errors_map_to_their_http_status_and_back() {
    let push = crate::a2a::push_not_supported(crate::a2a::Version::V1_0, &Value::Null);
    let (http, body) = error_from_jsonrpc(&push["error"], None);
    assert_eq!(http, 400);
    assert_eq!(body["error"]["status"], "FAILED_PRECONDITION");
    assert_eq!(body["error"]["details"][0]["reason"], "PUSH_NOTIFICATION_NOT_SUPPORTED");
    assert_eq!(body["error"]["details"].as_array().map(Vec::len), Some(1), "no second ErrorInfo");
    assert_eq!(error_to_jsonrpc(&body)["code"], -32003, "and back");
    // A v0.3-shaped error (no details) gets its reason from the code.
    let (http, body) = error_from_jsonrpc(&json!({"code": -32001, "message": "gone"}), None);
    assert_eq!((http, body["error"]["details"][0]["reason"].clone()), (404, json!("TASK_NOT_FOUND")));
    let (http, body) = error_from_jsonrpc(&json!({"code": -32603, "message": "down"}), Some(502));
    assert_eq!((http, body["error"]["status"].clone()), (502, json!("UNAVAILABLE")));
    // An agent's error without an ErrorInfo maps by its HTTP status.
    assert_eq!(error_to_jsonrpc(&json!({"error": {"code": 404, "message": "x"}}))["code"], -32601);
    assert_eq!(error_to_jsonrpc(&json!({"error": {"code": 409, "message": "x"}}))["code"], -32600);
}

#[test]
fn only_paths_below_an_alias_are_rest_paths() {
    assert!(is_alias_rest_path("/a2a/agent-a/message:send"));
    assert!(is_alias_rest_path("/a2a/agent-a/tasks/t"));
    for path in ["/a2a/agent-a", "/a2a/agent-a/", "/a2a/agent-a/.well-known/agent-card.json", "/mcp", "/a2a"]
    {
        assert!(!is_alias_rest_path(path), "{path}");
    }
}
