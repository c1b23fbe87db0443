//! The A2A adapter's readings of messages, tasks, answers and refusals, on both versions.

use super::*;
use blindfold_schemas::{CheckId, Decision, Reason};

#[test]
fn member_finds_what_the_pointer_found() {
    let values = [
        json!({"status": {"message": {"role": "ROLE_AGENT"}, "state": "x"}}),
        json!({"status": [{"message": 1}], "artifact": {"parts": []}}),
        json!({"status": {"message": null}}),
        json!({"task": {"status": {"state": "TASK_STATE_COMPLETED"}}, "statusUpdate": 3}),
        json!([{"status": {"message": 1}}]),
        json!("status"),
        json!(null),
    ];
    // Member names (never array indexes), as at every call site.
    let keys = ["status", "message", "state", "artifact", "parts", "task", "statusUpdate"];
    for v in &values {
        for outer in keys {
            for inner in keys {
                assert_eq!(
                    member(v, outer, inner),
                    v.pointer(&format!("/{outer}/{inner}")),
                    "{v} {outer} {inner}"
                );
            }
        }
    }
}

#[test]
fn a_send_result_is_polled_as_a_task_in_both_versions() {
    let task = json!({"id": "t-1", "status": {"state": "TASK_STATE_COMPLETED"}});
    let v1 = as_polled_task(Version::V1_0, &json!({"task": task}), "held-1", "c");
    assert_eq!(v1, Some(task));
    let msg = json!({"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "done"}]});
    let v1 = as_polled_task(Version::V1_0, &json!({"message": msg}), "held-1", "c").expect("a task");
    assert_eq!(
        (&v1["id"], &v1["status"]["state"], &v1["status"]["message"]),
        (&json!("held-1"), &json!("TASK_STATE_COMPLETED"), &msg)
    );
    let msg = json!({"kind": "message", "messageId": "m", "role": "agent", "parts": []});
    let v03 = as_polled_task(Version::V0_3, &msg, "held-2", "c").expect("a task");
    assert_eq!((&v03["kind"], &v03["status"]["state"]), (&json!("task"), &json!("completed")));
    assert_eq!(as_polled_task(Version::V0_3, &json!({"kind": "status-update"}), "h", "c"), None);
    assert_eq!(task_not_found(Version::V1_0, &json!(3), "gone")["error"]["code"], TASK_NOT_FOUND);
    assert_eq!(canceled_task(Version::V0_3, "h", "c")["status"]["state"], "canceled");
}

#[test]
fn version_defaults_to_0_3_and_refuses_unknown() {
    assert_eq!(Version::from_param(None), Ok(Version::V0_3));
    assert_eq!(Version::from_param(Some("1.0")), Ok(Version::V1_0));
    assert!(Version::from_param(Some("2.0")).is_err());
    assert!(Version::V1_0.knows("SendMessage") && !Version::V1_0.knows("message/send"));
    assert!(Version::V0_3.knows("message/stream") && !Version::V0_3.knows("ListTasks"));
}

#[test]
fn messages_yield_text_context_and_actions() {
    let params = json!({"message": {"contextId": "c1", "parts": [
        {"text": "please"}, {"kind": "text", "text": "write"},
        {"data": {"blindfold/action": {"tool": "write_file", "args": {"path": "/a"}}}}
    ]}});
    let msg = message(&params).expect("message");
    assert_eq!(message_text(msg), "please\nwrite");
    assert_eq!(context_id(&params).as_deref(), Some("c1"));
    let (tool, args) = requested_action(msg).expect("ok").expect("action");
    assert_eq!((tool.as_str(), &args["path"]), ("write_file", &json!("/a")));
    assert!(requested_action(&json!({"parts": [{"data": {"blindfold/action": {}}}]})).is_err());
}

#[test]
fn answers_yield_agent_text_proposals_and_relations_in_both_versions() {
    let v1 = json!({"task": {
        "status": {"state": "TASK_STATE_COMPLETED", "message": {"role": "ROLE_AGENT", "parts": [{"text": "done"}]}},
        "artifacts": [{"parts": [{"text": "run it"}, {"data": {"blindfold/proposal":
            {"id": "p1", "tool": "bash", "args": {"command": "rm -rf /srv/data"}}}}]}],
        "history": [{"role": "ROLE_USER", "parts": [{"text": "the coordinator's words"}]}],
    }});
    let a = answer(&v1);
    assert_eq!(a.text, "done\nrun it");
    assert_eq!(a.proposals.len(), 1);
    assert_eq!(a.proposals[0].args["command"], "rm -rf /srv/data");
    let v03 = json!({"kind": "artifact-update", "artifact": {"parts": [
        {"kind": "text", "text": "no"},
        {"kind": "data", "data": {"blindfold/relation": [{"proposal": "p1", "relation": "REFUTES"}]}}]}});
    let a = answer(&v03);
    assert_eq!(a.text, "no");
    assert_eq!(a.relations[0].relation, blindfold_schemas::Relation::Refutes);
    let user = json!({"message": {"role": "ROLE_USER", "parts": [{"text": "x"}]}});
    assert!(answer(&user).is_empty());
    let status = json!({"kind": "status-update", "status": {"message": {"role": "agent", "parts": [{"kind": "text", "text": "working"}]}}});
    assert_eq!(answer(&status).text, "working");
    assert!(!ends_turn(&status));
    assert!(ends_turn(&v1));
    assert!(ends_turn(&json!({"statusUpdate": {"status": {"state": "TASK_STATE_COMPLETED"}}})));
    assert!(ends_turn(&json!({"kind": "status-update", "final": true, "status": {"state": "working"}})));
    let mut both = answer(&v1);
    both.extend(answer(&v03));
    assert_eq!((both.text.as_str(), both.relations.len()), ("done\nrun it\nno", 1));
}

#[test]
fn push_configs_are_recognised_in_every_spelling() {
    assert!(
        is_push_config("CreateTaskPushNotificationConfig")
            && is_push_config("tasks/pushNotificationConfig/set")
    );
    assert!(!is_push_config("SendMessage") && !is_push_config("GetExtendedAgentCard"));
    for key in ["taskPushNotificationConfig", "pushNotificationConfig", "task_push_notification_config"] {
        let params = json!({"message": {}, "configuration": {key: {"url": "http://hook"}}});
        assert!(asks_for_push(&params), "{key}");
    }
    let plain =
        json!({"configuration": {"acceptedOutputModes": ["text/plain"], "pushNotificationConfig": null}});
    assert!(!asks_for_push(&plain) && !asks_for_push(&json!({"message": {}})));
    let v1 = push_not_supported(Version::V1_0, &json!(4));
    assert_eq!((v1["id"].clone(), v1["error"]["code"].clone()), (json!(4), json!(-32003)));
    assert_eq!(v1["error"]["data"][0]["reason"], "PUSH_NOTIFICATION_NOT_SUPPORTED");
    let v03 = push_not_supported(Version::V0_3, &json!("x"));
    assert_eq!(v03["error"]["message"], "Push Notification is not supported");
    assert!(v03["error"].get("data").is_none());
}

#[test]
fn refusals_are_native_tasks() {
    let d = Decision::deny(Reason::Contradicted, CheckId::Contradiction);
    let r = Refusal::new(d, "t", None);
    let v1 = refusal_result(Version::V1_0, &r, Some("rf-9"), "task-1", "ctx", "m");
    assert_eq!(v1["task"]["status"]["state"], "TASK_STATE_REJECTED");
    let text = v1["task"]["status"]["message"]["parts"][0]["text"].as_str().expect("text");
    assert!(text.contains("contradicted") && text.contains("rf-9"), "{text}");
    assert!(!text.contains("To unblock") && !text.contains("sha256"), "{text}");
    let v03 = refusal_result(Version::V0_3, &r, None, "task-1", "ctx", "m");
    assert_eq!(v03["status"]["state"], "rejected");
    assert_eq!(v03["kind"], "task");
}
