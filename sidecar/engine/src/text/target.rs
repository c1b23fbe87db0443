//! Targets (SPEC §5): the resources an action touches — paths, URLs, hosts, e-mail recipients,
//! refs and words named by the registry — and its whole normalised command. A bare executable
//! or tool name is not a target; a tool is one only when a refutation is about the tool itself.

use std::borrow::Cow;
use std::fmt;

/// One normalised target.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    /// A filesystem path, lexically normalised.
    Path(String),
    /// A URL: scheme and host lowercased, default port, fragment and dot segments removed.
    Url(String),
    /// A host name, lowercased.
    Host(String),
    /// An e-mail address, lowercased.
    Email(String),
    /// A whole shell command, whitespace-normalised.
    Command(String),
    /// Any other registry target value (an environment, a remote, a ref), lowercased.
    Word(String),
    /// A tool itself ("do not use the deploy tool at all").
    Tool(String),
}

impl Target {
    /// True when an action touching `self` touches `disputed`: the same target, a path inside a
    /// disputed directory, or a URL on a disputed host.
    pub fn touches(&self, disputed: &Target) -> bool {
        if self == disputed {
            return true;
        }
        match (self, disputed) {
            (Target::Path(p), Target::Path(d)) => is_ancestor(d, p),
            (Target::Url(u), Target::Host(h)) => host_of(u).is_some_and(|uh| uh == *h),
            _ => false,
        }
    }

    /// The text form used in indexes and explanations.
    pub fn key(&self) -> String {
        self.to_string()
    }

    /// The raw value without its kind.
    pub fn value(&self) -> &str {
        match self {
            Target::Path(v)
            | Target::Url(v)
            | Target::Host(v)
            | Target::Email(v)
            | Target::Command(v)
            | Target::Word(v)
            | Target::Tool(v) => v,
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self {
            Target::Path(_) => "path",
            Target::Url(_) => "url",
            Target::Host(_) => "host",
            Target::Email(_) => "email",
            Target::Command(_) => "cmd",
            Target::Word(_) => "word",
            Target::Tool(_) => "tool",
        };
        write!(f, "{kind}:{}", self.value())
    }
}

/// True when `dir` is a proper ancestor of `path` and specific enough to scope a dispute
/// (not `/`, `~`, `.`).
pub fn is_ancestor(dir: &str, path: &str) -> bool {
    if matches!(dir, "/" | "~" | "." | "" | "..") {
        return false;
    }
    path.len() > dir.len() && path.starts_with(dir) && path.as_bytes()[dir.len()] == b'/'
}

/// True when an effect on `path` reaches the disputed path `disputed` from outside it: `path`
/// is a directory above it (deleting `/srv` deletes `/srv/releases`; `/` and, for relative
/// paths, `.` hold everything), or a glob that could expand to it, to a directory above it or
/// to a path inside it (`/srv/rel*`, `/*`). A disputed `/`, `~` or `.` is too broad to reach.
pub fn reaches(path: &str, disputed: &str) -> bool {
    if matches!(disputed, "/" | "~" | "." | "" | "..") {
        return false;
    }
    if is_glob(path) {
        return glob_overlaps(path, disputed);
    }
    match path {
        "/" => disputed.starts_with('/'),
        "." => !disputed.starts_with(['/', '~']) && !disputed.starts_with(".."),
        _ => is_ancestor(path, disputed),
    }
}

/// True when `path` holds a shell glob character (`*`, `?`, `[`, `{`).
fn is_glob(path: &str) -> bool {
    path.contains(['*', '?', '[', '{'])
}

/// True when the glob `pattern` could name `path`, a directory above it or a path inside it:
/// both absolute or both relative, and each component the two share matches (a `**` component
/// matches whatever follows).
fn glob_overlaps(pattern: &str, path: &str) -> bool {
    if pattern.starts_with('/') != path.starts_with('/') {
        return false;
    }
    let components = |p| str::split(p, '/').filter(|c: &&str| !c.is_empty());
    for (glob, name) in components(pattern).zip(components(path)) {
        if glob == "**" {
            return true;
        }
        if !component_matches(glob, name) {
            return false;
        }
    }
    true
}

/// True when the glob component `glob` could match the file name `name`: `*`, `?` and bracket
/// classes as the shell reads them; a brace expansion (`{a,b}`) is not modelled and matches
/// anything.
fn component_matches(glob: &str, name: &str) -> bool {
    if glob.contains('{') {
        return true;
    }
    let (g, n): (Vec<char>, Vec<char>) = (glob.chars().collect(), name.chars().collect());
    let (mut gi, mut ni) = (0, 0);
    // Where the last `*` was and the name position it is tried from next.
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        let step = match g.get(gi) {
            Some('*') => {
                star = Some((gi, ni));
                gi += 1;
                continue;
            }
            Some('?') => Some(1),
            Some('[') => match bracket_matches(&g[gi..], n[ni]) {
                Some((true, len)) => Some(len),
                Some((false, _)) => None,
                None => (n[ni] == '[').then_some(1),
            },
            Some(c) => (*c == n[ni]).then_some(1),
            None => None,
        };
        match (step, star) {
            (Some(len), _) => {
                gi += len;
                ni += 1;
            }
            (None, Some((s, from))) => {
                gi = s + 1;
                ni = from + 1;
                star = Some((s, from + 1));
            }
            (None, None) => return false,
        }
    }
    g[gi..].iter().all(|c| *c == '*')
}

/// Whether the bracket class opening `class` (`[abc]`, `[!a-z]`, `[^x]`) matches `c`, and the
/// class's length; `None` when the `[` is not closed (the shell then reads it literally).
fn bracket_matches(class: &[char], c: char) -> Option<(bool, usize)> {
    let mut i = 1;
    let negated = matches!(class.get(i), Some('!' | '^'));
    if negated {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    while let Some(&ch) = class.get(i) {
        if ch == ']' && !first {
            return Some((matched != negated, i + 1));
        }
        if class.get(i + 1) == Some(&'-') && class.get(i + 2).is_some_and(|end| *end != ']') {
            matched |= (ch..=class[i + 2]).contains(&c);
            i += 3;
        } else {
            matched |= ch == c;
            i += 1;
        }
        first = false;
    }
    None
}

/// Lexical path normalisation: `//` collapsed, `.` dropped, `..` resolved where possible,
/// trailing `/` removed (except for `/` itself).
pub fn normalise_path(raw: &str) -> String {
    // Most paths are normal already: no empty, `.` or `..` segment (so no `//`, no trailing `/`).
    let rest = raw.strip_prefix('/').unwrap_or(raw);
    if !rest.is_empty() && rest.split('/').all(|p| !matches!(p, "" | "." | "..")) {
        return raw.to_owned();
    }
    let absolute = raw.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in raw.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|p| *p != "..") {
                    parts.pop();
                } else if !absolute {
                    parts.push("..");
                }
            }
            p => parts.push(p),
        }
    }
    let joined = parts.join("/");
    match (absolute, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".to_owned(),
        (false, false) => joined,
    }
}

/// Parses and normalises a URL; `None` when `raw` is not `scheme://authority…`.
///
/// Special schemes (`http`, `https`, `ws`, `wss`, `ftp`) are split the way WHATWG parsers
/// (browsers, Node's `URL`) split them: extra slashes after `://` are skipped, a backslash ends
/// the authority as `/` does, and backslashes in the path are slashes — so
/// `https://evil.com\@docs.example.org/` is on `evil.com`, as the clients that fetch it see it.
pub fn normalise_url(raw: &str) -> Option<String> {
    let (scheme, rest) = raw.split_once("://")?;
    if scheme.is_empty() || !scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c)) {
        return None;
    }
    let scheme = scheme.to_ascii_lowercase();
    let special = is_special_scheme(&scheme);
    let rest = rest.split('#').next().unwrap_or("");
    let rest = if special { rest.trim_start_matches(['/', '\\']) } else { rest };
    let split = if special { rest.find(['/', '?', '\\']) } else { rest.find(['/', '?']) };
    let (authority, tail) = rest.split_at(split.unwrap_or(rest.len()));
    let hostport = authority.rsplit_once('@').map_or(authority, |(_, h)| h).to_ascii_lowercase();
    let hostport = hostport.trim_end_matches('.');
    let default_port = match scheme.as_str() {
        "http" | "ws" => Some(":80"),
        "https" | "wss" => Some(":443"),
        _ => None,
    };
    let hostport = match default_port {
        Some(p) => hostport.strip_suffix(p).unwrap_or(hostport),
        None => hostport,
    };
    if hostport.is_empty() {
        return None;
    }
    let (path, query) = match tail.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (tail, None),
    };
    let path =
        if special && path.contains('\\') { path.replace('\\', "/").into() } else { Cow::Borrowed(path) };
    let path = if path.is_empty() { String::new() } else { normalise_path(&path) };
    let path = if path == "/" { String::new() } else { path };
    Some(match query {
        Some(q) if !q.is_empty() => format!("{scheme}://{hostport}{path}?{q}"),
        _ => format!("{scheme}://{hostport}{path}"),
    })
}

/// True for the schemes WHATWG calls special, whose URLs treat `\` as `/` (`file`, special
/// too, has no host to skip slashes to and keeps the general split).
fn is_special_scheme(scheme: &str) -> bool {
    matches!(scheme, "http" | "https" | "ws" | "wss" | "ftp")
}

/// The host of a normalised URL (without port).
pub fn host_of(url: &str) -> Option<String> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split(['/', '?', '\\']).next()?;
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if host.starts_with('[') {
        host.split(']').next().map(|h| format!("{h}]"))?
    } else {
        host.split(':').next()?.to_owned()
    };
    (!host.is_empty()).then_some(host)
}

/// The lowercased host of an `http`/`https` URL when every client would fetch from that host,
/// else `None`.
///
/// Clients disagree about URLs: WHATWG parsers end the authority at `\` too, skip extra
/// slashes, drop tabs and newlines and percent-decode the host; others do none of that and
/// take the part after the last `@` as the host. So the authority (up to the first `/`, `?` or
/// `#`) must hold no userinfo `@`, backslash, `%`, whitespace or control character; the host
/// must be ASCII letters, digits, `-`, `_` and `.` (or a bracketed IPv6 literal) and the port,
/// if any, digits.
pub fn unambiguous_http_host(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    if !(scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https")) {
        return None;
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    if authority.contains(['@', '\\', '%'])
        || authority.contains(|c: char| c.is_whitespace() || c.is_control())
    {
        return None;
    }
    let (host, port) = match authority.strip_prefix('[') {
        Some(v6) => {
            let (inner, after) = v6.split_once(']')?;
            let ok =
                !inner.is_empty() && inner.chars().all(|c| c.is_ascii_hexdigit() || c == ':' || c == '.');
            (ok.then(|| format!("[{inner}]"))?, after.strip_prefix(':').unwrap_or(after))
        }
        None => {
            let (host, port) = authority.split_once(':').unwrap_or((authority, ""));
            let ok = host.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
            (ok.then(|| host.to_owned())?, port)
        }
    };
    (port.chars().all(|c| c.is_ascii_digit()) && !host.is_empty()).then(|| host.to_ascii_lowercase())
}

/// File extensions that make `name.ext` a file name rather than a host.
pub(crate) const FILE_EXTENSIONS: &[&str] = &[
    "md", "txt", "py", "sh", "bash", "json", "yaml", "yml", "toml", "rs", "js", "ts", "csv", "log", "cfg",
    "conf", "ini", "html", "htm", "xml", "pdf", "env", "lock", "sql", "go", "c", "h", "cpp", "java", "rb",
    "php", "pem", "key", "db", "zip", "tar", "gz", "tgz", "bak", "tmp", "out", "ps1", "bat", "exe", "dll",
    "so", "jsx", "tsx", "css", "png", "jpg", "docx", "xlsx", "ipynb", "lua", "pl", "r", "swift", "kt",
];

/// Classifies one token (already stripped of surrounding punctuation) as a resource.
pub fn classify(token: &str) -> Option<Target> {
    if token.len() < 2 || !may_name_resource(token) {
        return None;
    }
    if token.contains("://") {
        return normalise_url(token).map(Target::Url);
    }
    if let Some((local, domain)) = token.split_once('@')
        && !local.is_empty()
        && is_hostname(domain)
        && !local.contains('/')
        && !domain.contains(':')
    {
        return Some(Target::Email(token.to_ascii_lowercase()));
    }
    // scp-style `user@host:path` and git remotes `git@host:org/repo`.
    if let Some((left, _)) = token.split_once(':')
        && left.contains('@')
        && let Some(host) = left.rsplit('@').next()
        && is_hostname(host)
    {
        return Some(Target::Word(token.to_ascii_lowercase()));
    }
    if token.starts_with('/')
        || token.starts_with("~/")
        || token.starts_with("./")
        || token.starts_with("../")
    {
        return Some(Target::Path(normalise_path(token)));
    }
    if token.contains('/') && !token.contains(' ') && !token.starts_with('-') {
        return Some(Target::Path(normalise_path(token)));
    }
    if let Some((_, ext)) = token.rsplit_once('.')
        && FILE_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str())
        && token.len() > ext.len() + 1
        && !token.starts_with('-')
    {
        return Some(Target::Path(normalise_path(token)));
    }
    if is_hostname(token) {
        return Some(Target::Host(token.to_ascii_lowercase().trim_end_matches('.').to_owned()));
    }
    None
}

/// True when `s` holds one of the bytes every resource kind needs (`/` of a path or URL, `@` of
/// an address, `:` of a URL or remote, `.` of a host or file name): a token without any of them
/// classifies as nothing, so it is not looked at further.
fn may_name_resource(s: &str) -> bool {
    s.bytes().any(is_resource_byte)
}

/// `a.b` or longer, labels of letters, digits and `-`, last label alphabetic (≥ 2) — or an IPv4.
pub fn is_hostname(s: &str) -> bool {
    let s = s.trim_end_matches('.');
    if !s.contains('.') {
        return false;
    }
    let labels: Vec<&str> = s.split('.').collect();
    if labels.len() < 2 || labels.iter().any(|l| l.is_empty() || l.len() > 63) {
        return false;
    }
    if labels.len() == 4 && labels.iter().all(|l| l.parse::<u8>().is_ok()) {
        return true;
    }
    let ok_chars = labels.iter().all(|l| l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'));
    let tld = labels[labels.len() - 1];
    ok_chars && tld.len() >= 2 && tld.chars().all(|c| c.is_ascii_alphabetic())
}

/// Strips quotes, brackets and trailing sentence punctuation around a token.
pub fn trim_token(token: &str) -> &str {
    let t = token.trim_matches(|c: char| {
        matches!(c, '"' | '\'' | '`' | '(' | ')' | '[' | ']' | '{' | '}' | '<' | '>' | ',' | ';' | '!' | '?')
            || c == '“'
            || c == '”'
            || c == '‘'
            || c == '’'
            || c == '「'
            || c == '」'
            || c == '，'
            || c == '。'
            || c == '：'
    });
    t.trim_end_matches(['.', ':'])
}

/// True for the characters that separate tokens of free text: whitespace and CJK punctuation.
fn separates_tokens(c: char) -> bool {
    c.is_whitespace() || matches!(c, '，' | '。' | '；' | '：' | '、' | '（' | '）' | '「' | '」')
}

/// True for the bytes every resource kind needs (see [`may_name_resource`]).
fn is_resource_byte(b: u8) -> bool {
    matches!(b, b'/' | b'@' | b':' | b'.')
}

/// Every resource named in free text: URLs (and their hosts), e-mail addresses, paths, hosts.
///
/// Tokens are the runs between separators (whitespace, CJK punctuation). Only a token holding a
/// resource byte can name a resource (trimming and the `-k=v` split only shorten it), so the scan
/// jumps from one resource byte to the next and looks at just the token around it, in text order.
pub fn resources_in_text(text: &str) -> Vec<Target> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(i) = bytes[from..].iter().position(|&b| is_resource_byte(b)) {
        // A resource byte is ASCII, never a separator: the token around it starts after the
        // separator before it (at or after `from`, where the previous token ended) and ends at
        // the separator after it.
        let at = from + i;
        let start = text[from..at]
            .char_indices()
            .rev()
            .find(|&(_, c)| separates_tokens(c))
            .map_or(from, |(j, c)| from + j + c.len_utf8());
        let end =
            text[at..].char_indices().find(|&(_, c)| separates_tokens(c)).map_or(text.len(), |(j, _)| at + j);
        push_resource(&text[start..end], &mut out);
        from = end;
    }
    out
}

/// The resource one raw token names, if any (after its host when it is a URL).
fn push_resource(raw: &str, out: &mut Vec<Target>) {
    let token = trim_token(raw);
    let token = token.split_once('=').map_or(token, |(k, v)| if k.starts_with('-') { v } else { token });
    if let Some(t) = classify(token) {
        if let Target::Url(u) = &t
            && let Some(h) = host_of(u)
        {
            out.push(Target::Host(h));
        }
        out.push(t);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_normalise_lexically() {
        assert_eq!(normalise_path("/data//x/./y/../z/"), "/data/x/z");
        assert_eq!(normalise_path("./a/b"), "a/b");
        assert_eq!(normalise_path("/"), "/");
        assert_eq!(normalise_path("../a"), "../a");
    }

    #[test]
    fn urls_normalise() {
        assert_eq!(
            normalise_url("HTTPS://Evil.Example.COM:443/a/../b#frag").as_deref(),
            Some("https://evil.example.com/b")
        );
        assert_eq!(normalise_url("http://h.org/?q=1").as_deref(), Some("http://h.org?q=1"));
        assert_eq!(normalise_url("not a url"), None);
        assert_eq!(host_of("https://user@h.example.org:8443/x").as_deref(), Some("h.example.org"));
    }

    #[test]
    fn special_scheme_urls_split_at_backslashes_as_whatwg_clients_do() {
        let u = normalise_url("https://evil.com\\@docs.example.org/x");
        assert_eq!(u.as_deref(), Some("https://evil.com/@docs.example.org/x"));
        assert_eq!(host_of(&u.unwrap_or_default()).as_deref(), Some("evil.com"));
        assert_eq!(normalise_url("https:///\\Evil.com\\a\\..\\b").as_deref(), Some("https://evil.com/b"));
        // Other schemes keep the general split; a `file` URL has no host.
        assert_eq!(normalise_url("git://h.org\\x/y").as_deref(), Some("git://h.org\\x/y"));
        assert_eq!(normalise_url("file:///etc/passwd"), None);
    }

    #[test]
    fn classify_tells_kinds_apart() {
        assert_eq!(classify("/etc/passwd"), Some(Target::Path("/etc/passwd".into())));
        assert_eq!(classify("report.md"), Some(Target::Path("report.md".into())));
        assert_eq!(classify("evil.example.com"), Some(Target::Host("evil.example.com".into())));
        assert_eq!(classify("Bob@Example.org"), Some(Target::Email("bob@example.org".into())));
        assert_eq!(classify("rm"), None);
        assert_eq!(classify("-rf"), None);
    }

    #[test]
    fn touches_is_equality_or_containment() {
        let data = Target::Path("/data".into());
        assert!(Target::Path("/data/x".into()).touches(&data));
        assert!(!Target::Path("/database".into()).touches(&data));
        assert!(!Target::Path("/x".into()).touches(&Target::Path("/".into())));
        assert!(Target::Url("https://evil.org/p".into()).touches(&Target::Host("evil.org".into())));
    }

    #[test]
    fn a_directory_above_or_a_glob_over_a_disputed_path_reaches_it() {
        for (path, disputed) in [
            ("/srv", "/srv/releases"),
            ("/", "/srv/releases"),
            ("/srv/rel*", "/srv/releases"),
            ("/s*", "/srv/releases"),
            ("/*/releases/x", "/srv/releases"),
            ("/srv/rel?ases", "/srv/releases/keep"),
            ("/srv/[q-s]eleases", "/srv/releases"),
            ("/srv/[!a]*", "/srv/releases"),
            ("/srv/**/x", "/srv/releases"),
            ("/srv/{a,b}", "/srv/releases"),
            (".", "reports/q3.md"),
            ("rep*", "reports/q3.md"),
        ] {
            assert!(reaches(path, disputed), "{path} should reach {disputed}");
        }
        for (path, disputed) in [
            ("/srv/releases/x", "/srv/releases"),
            ("/srvx", "/srv/releases"),
            ("/srv/tmp*", "/srv/releases"),
            ("/srv/[!r]*", "/srv/releases"),
            ("/srv/[abc", "/srv/releases"),
            ("/tmp/*.log", "/srv/releases"),
            ("srv/*", "/srv/releases"),
            ("/", "/"),
            ("/*", "~"),
            (".", "/srv"),
        ] {
            assert!(!reaches(path, disputed), "{path} should not reach {disputed}");
        }
    }

    #[test]
    fn resources_in_text_finds_urls_hosts_paths() {
        let found =
            resources_in_text("Do not fetch https://evil.org/payload.sh or touch /data, mail ops@corp.com.");
        assert!(found.contains(&Target::Url("https://evil.org/payload.sh".into())));
        assert!(found.contains(&Target::Host("evil.org".into())));
        assert!(found.contains(&Target::Path("/data".into())));
        assert!(found.contains(&Target::Email("ops@corp.com".into())));
    }
}
