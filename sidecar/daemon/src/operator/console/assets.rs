//! The console's page, script and style sheet, embedded in the binary (no build step, nothing
//! fetched from anywhere else), and the headers every console answer carries: a strict
//! Content-Security-Policy (scripts, styles and images from this origin only, no inline code,
//! no framing), `nosniff`, no referrer.

use axum::extract::Path;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};

/// The page.
const INDEX: &str = include_str!("static/index.html");
/// The script.
const SCRIPT: &str = include_str!("static/console.js");
/// The style sheet.
const STYLE: &str = include_str!("static/console.css");
/// The icon.
const ICON: &str = include_str!("static/icon.svg");

/// The policy of every console answer: nothing but this origin, and no inline script or style.
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; \
    connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// `GET /console` → `/console/`.
pub async fn redirect() -> Redirect {
    Redirect::permanent("/console/")
}

/// `GET /console/`: the page.
pub async fn index() -> Response {
    asset("text/html; charset=utf-8", INDEX)
}

/// `GET /console/{file}`: the script, style sheet or icon.
pub async fn file(Path(file): Path<String>) -> Response {
    match file.as_str() {
        "console.js" => asset("text/javascript; charset=utf-8", SCRIPT),
        "console.css" => asset("text/css; charset=utf-8", STYLE),
        "icon.svg" => asset("image/svg+xml", ICON),
        _ => (StatusCode::NOT_FOUND, "no such file").into_response(),
    }
}

fn asset(content_type: &'static str, body: &'static str) -> Response {
    let mut r = body.into_response();
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    r
}

/// Adds the console's security headers to an answer.
pub async fn secure_headers(mut response: Response) -> Response {
    let h = response.headers_mut();
    h.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert("cross-origin-opener-policy", HeaderValue::from_static("same-origin"));
    h.insert("cross-origin-resource-policy", HeaderValue::from_static("same-origin"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_has_no_inline_code_and_names_nothing_outside() {
        for (name, text) in [("index.html", INDEX), ("console.js", SCRIPT), ("console.css", STYLE)] {
            for banned in ["http://", "https://", "//cdn", "@import", "eval(", "new Function"] {
                assert!(!text.contains(banned), "{name} contains {banned}");
            }
        }
        assert!(!INDEX.contains("<script>") && !INDEX.contains(" style=") && !INDEX.contains("<style"));
        let handler = regex::Regex::new(r"\son[a-z]+\s*=").expect("regex");
        assert!(!handler.is_match(INDEX), "no inline event handlers");
        assert!(!SCRIPT.contains("innerHTML"), "the script builds nodes, never markup from data");
    }
}
