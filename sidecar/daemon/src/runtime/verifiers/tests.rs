//! Picking a verifier, the rate, and what an outcome says.

use super::*;
use crate::config::{Verifier, VerifierEndpoint, VerifiersConfig};
use std::time::Duration;

fn verifiers(per_minute: u32) -> Verifiers {
    let v = |id: &str, family: &str| Verifier {
        id: id.into(),
        family: family.into(),
        model: "m".into(),
        endpoint: VerifierEndpoint::A2a { url: "http://127.0.0.1:9/".into() },
    };
    let config = VerifiersConfig {
        verifiers: vec![v("first", "q"), v("second", "r")],
        timeout: Duration::from_secs(1),
        calls_per_minute: per_minute,
    };
    Verifiers::new(&config).expect("configured")
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn the_verifier_picked_is_of_no_family_and_no_agent_the_action_rests_on() {
    let v = verifiers(10);
    assert_eq!(v.pick(&set(&["m"]), &set(&["worker"])).map(|x| x.id.as_str()), Some("first"));
    assert_eq!(v.pick(&set(&["q"]), &set(&["worker"])).map(|x| x.id.as_str()), Some("second"));
    assert_eq!(v.pick(&set(&["m"]), &set(&["first"])).map(|x| x.id.as_str()), Some("second"));
    assert!(v.pick(&set(&["q", "r"]), &set(&[])).is_none());
    assert!(
        Verifiers::new(&VerifiersConfig {
            verifiers: vec![],
            timeout: Duration::from_secs(1),
            calls_per_minute: 1
        })
        .is_none()
    );
}

#[test]
fn the_rate_admits_so_many_a_minute() {
    let v = verifiers(2);
    assert!(v.admit(1_000) && v.admit(2_000));
    assert!(!v.admit(3_000), "the third in a minute is refused");
    assert!(v.admit(61_500), "a minute after the first, one more");
    assert!(!v.admit(61_600));
}

#[test]
fn outcomes_say_who_was_asked_and_what_came_back() {
    let approve = Outcome::Answered { verifier: "first".into(), verdict: Some(VerdictWord::Approve) };
    assert_eq!(approve.describe(), "Blindfold asked an independent verifier: approve");
    assert_eq!(approve.describe_for_person(), "Blindfold asked verifier `first`: approve");
    let prose = Outcome::Answered { verifier: "first".into(), verdict: None };
    assert!(prose.describe().contains("no verdict line"));
    let silent = Outcome::Silent { verifier: "first".into(), why: "no answer within 1 s".into() };
    assert!(silent.describe().ends_with("no answer within 1 s"));
    assert!(v_ids_distinct());
}

fn v_ids_distinct() -> bool {
    let v = verifiers(1);
    v.call_id() != v.call_id()
}
