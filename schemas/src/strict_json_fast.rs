//! The direct reader behind [`super::value_from_slice`]: one pass over the bytes straight into
//! a [`Value`], with the strict rules (duplicate keys, nesting limit) checked on the way.
//!
//! It accepts only what it reads exactly as `serde_json` does and answers `None` for anything
//! else — malformed input, a duplicate key, nesting at the limit — so the caller falls back to
//! the `serde_json`-based reader, which then gives the same value or the same error as ever.
//! Escaped strings and numbers other than plain integers are handed to `serde_json` itself.

use serde_json::map::Entry;
use serde_json::{Map, Value};

/// Deepest nesting this reader handles itself (deeper input goes to the fallback, which also
/// owns the depth error).
const DEPTH: usize = 100;

/// The value `bytes` holds, when it is well-formed strict JSON nested less than `max_depth`
/// levels; `None` means "ask the fallback", never "invalid" by itself.
pub(super) fn parse(bytes: &[u8], max_depth: usize) -> Option<Value> {
    let mut r = Reader { b: bytes, i: 0, max: max_depth.min(DEPTH) };
    let value = r.value(0)?;
    r.skip_ws();
    (r.i == bytes.len()).then_some(value)
}

struct Reader<'a> {
    b: &'a [u8],
    i: usize,
    max: usize,
}

impl Reader<'_> {
    /// Skips JSON whitespace (what `serde_json` skips: space, tab, CR, LF).
    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn value(&mut self, depth: usize) -> Option<Value> {
        self.skip_ws();
        match self.peek()? {
            b'{' => self.object(depth),
            b'[' => self.array(depth),
            b'"' => self.string().map(Value::String),
            b't' => self.literal(b"true", Value::Bool(true)),
            b'f' => self.literal(b"false", Value::Bool(false)),
            b'n' => self.literal(b"null", Value::Null),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    fn literal(&mut self, word: &[u8], value: Value) -> Option<Value> {
        let found = self.b[self.i..].starts_with(word);
        found.then(|| {
            self.i += word.len();
            value
        })
    }

    fn array(&mut self, depth: usize) -> Option<Value> {
        if depth >= self.max {
            return None;
        }
        self.i += 1;
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek()? == b']' {
            self.i += 1;
            return Some(Value::Array(items));
        }
        loop {
            items.push(self.value(depth + 1)?);
            self.skip_ws();
            match self.peek()? {
                b',' => self.i += 1,
                b']' => {
                    self.i += 1;
                    return Some(Value::Array(items));
                }
                _ => return None,
            }
        }
    }

    fn object(&mut self, depth: usize) -> Option<Value> {
        if depth >= self.max {
            return None;
        }
        self.i += 1;
        let mut out = Map::new();
        self.skip_ws();
        if self.peek()? == b'}' {
            self.i += 1;
            return Some(Value::Object(out));
        }
        loop {
            self.skip_ws();
            if self.peek()? != b'"' {
                return None;
            }
            let key = self.string()?;
            self.skip_ws();
            if self.peek()? != b':' {
                return None;
            }
            self.i += 1;
            let value = self.value(depth + 1)?;
            match out.entry(key) {
                Entry::Occupied(_) => return None,
                Entry::Vacant(e) => {
                    e.insert(value);
                }
            }
            self.skip_ws();
            match self.peek()? {
                b',' => self.i += 1,
                b'}' => {
                    self.i += 1;
                    return Some(Value::Object(out));
                }
                _ => return None,
            }
        }
    }

    /// A string starting at the opening quote under the cursor.
    fn string(&mut self) -> Option<String> {
        let start = self.i;
        let j = start + 1 + special_at(&self.b[start + 1..])?;
        match self.b[j] {
            b'"' => {}
            b'\\' => return self.escaped_string(start),
            _ => return None,
        }
        let text = std::str::from_utf8(&self.b[start + 1..j]).ok()?.to_owned();
        self.i = j + 1;
        Some(text)
    }

    /// A string with escapes, starting at `start` (its opening quote): found by skipping each
    /// escaped byte, then read by `serde_json` (which checks every escape and code point).
    fn escaped_string(&mut self, start: usize) -> Option<String> {
        let mut j = start + 1;
        loop {
            match *self.b.get(j)? {
                b'"' => break,
                b'\\' => j += 2,
                _ => j += 1,
            }
        }
        let text = serde_json::from_slice::<String>(&self.b[start..=j]).ok()?;
        self.i = j + 1;
        Some(text)
    }

    /// A number: plain integers that fit are read here, everything else (fractions, exponents,
    /// integers past 64 bits, `-0`) by `serde_json`.
    fn number(&mut self) -> Option<Value> {
        let start = self.i;
        let negative = self.b[start] == b'-';
        let digits = start + usize::from(negative);
        let mut j = digits;
        let mut magnitude = Some(0u64);
        while let Some(d @ b'0'..=b'9') = self.b.get(j).copied() {
            magnitude =
                magnitude.and_then(|m| m.checked_mul(10)).and_then(|m| m.checked_add(u64::from(d - b'0')));
            j += 1;
        }
        let count = j - digits;
        let plain = count > 0
            && !(count > 1 && self.b[digits] == b'0')
            && !matches!(self.b.get(j), Some(b'.' | b'e' | b'E'));
        let value = match (plain, negative, magnitude) {
            (true, false, Some(m)) => Some(Value::from(m)),
            (true, true, Some(m)) if m != 0 => i64::try_from(m).ok().map(|m| Value::from(-m)),
            _ => None,
        };
        if let Some(v) = value {
            self.i = j;
            return Some(v);
        }
        while let Some(b'0'..=b'9' | b'+' | b'-' | b'.' | b'e' | b'E') = self.b.get(j) {
            j += 1;
        }
        match serde_json::from_slice::<Value>(&self.b[start..j]).ok()? {
            v @ Value::Number(_) => {
                self.i = j;
                Some(v)
            }
            _ => None,
        }
    }
}

/// True for the bytes that end the plain run of a string: its closing quote, an escape, or a
/// control character (which JSON does not allow raw).
fn special(b: u8) -> bool {
    b == b'"' || b == b'\\' || b < 0x20
}

/// The offset of the first [`special`] byte of `s`, looked for 16 bytes at a time (a branch-free
/// test per block, then the byte within the block that has one).
fn special_at(s: &[u8]) -> Option<usize> {
    let mut blocks = s.chunks_exact(16);
    let mut base = 0;
    for block in &mut blocks {
        if block.iter().fold(false, |any, &b| any | special(b)) {
            return block.iter().position(|&b| special(b)).map(|i| base + i);
        }
        base += 16;
    }
    blocks.remainder().iter().position(|&b| special(b)).map(|i| base + i)
}
