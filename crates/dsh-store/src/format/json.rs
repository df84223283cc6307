//! JSON lines parsed the way JavaScript's `JSON.parse` reads them.

use crate::format::jv::Jv;

/// Parse one line as JavaScript's `JSON.parse` reads what DSH decodes from
/// it: invalid UTF-8 becomes U+FFFD, and an escaped lone surrogate
/// (`"\ud800"`), which `serde_json` rejects and JavaScript keeps in its
/// UTF-16 strings, becomes U+FFFD too, which is also what Node prints for
/// one. The value borrows from `bytes`, or from `scratch` when the line
/// needed either rewrite. The parser checks UTF-8 itself, so valid input —
/// nearly all of it — is not scanned twice; only input it refuses is
/// decoded lossily and parsed again, which gives the same answer.
pub fn parse_borrowed<'a>(bytes: &'a [u8], scratch: &'a mut String) -> Option<Jv<'a>> {
    if let Some(v) = crate::format::jv_read::parse(bytes) {
        return Some(v);
    }
    let lossy = String::from_utf8_lossy(bytes);
    *scratch = replace_lone_surrogates(&lossy).unwrap_or_else(|| lossy.into_owned());
    serde_json::from_str(scratch).ok()
}

fn hex4(b: &[u8]) -> Option<u16> {
    std::str::from_utf8(b.get(..4)?)
        .ok()
        .and_then(|s| u16::from_str_radix(s, 16).ok())
}

/// Rewrite unpaired `\uD800`–`\uDFFF` escapes inside strings; `None` when
/// there were none (so the original error stands).
fn replace_lone_surrogates(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let (mut i, mut last, mut changed, mut in_string) = (0, 0, false, false);
    while i < b.len() {
        match b[i] {
            b'"' => in_string = !in_string,
            b'\\' if in_string && i + 1 < b.len() => {
                if b[i + 1] == b'u'
                    && let Some(unit) = hex4(&b[i + 2..])
                {
                    let high = (0xD800..0xDC00).contains(&unit);
                    let low = (0xDC00..0xE000).contains(&unit);
                    let paired = high
                        && b.get(i + 6..i + 8) == Some(b"\\u")
                        && hex4(&b[i + 8..]).is_some_and(|n| (0xDC00..0xE000).contains(&n));
                    if paired {
                        i += 12;
                        continue;
                    }
                    if high || low {
                        out.push_str(&text[last..i]);
                        out.push_str("\\uFFFD");
                        changed = true;
                        i += 6;
                        last = i;
                        continue;
                    }
                }
                i += 2;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out.push_str(&text[last..]);
    changed.then_some(out)
}

#[cfg(test)]
mod surrogate_tests {
    use super::*;
    use serde_json::Value;

    fn parse_json_line(text: &str) -> Result<Value, ()> {
        let mut scratch = String::new();
        parse_borrowed(text.as_bytes(), &mut scratch)
            .map(|j| j.to_value())
            .ok_or(())
    }

    /// The rule spelled out: decode lossily, rewrite lone surrogates, parse.
    fn reference(bytes: &[u8]) -> Result<Value, ()> {
        let lossy = String::from_utf8_lossy(bytes);
        let text = replace_lone_surrogates(&lossy).unwrap_or_else(|| lossy.into_owned());
        serde_json::from_str(&text).map_err(|_| ())
    }

    #[test]
    fn lone_surrogates_parse_as_javascript_does() {
        assert_eq!(
            parse_json_line(r#"{"a":"x\ud800y"}"#).unwrap()["a"],
            "x\u{FFFD}y"
        );
        assert_eq!(
            parse_json_line(r#"{"a":"\udc00"}"#).unwrap()["a"],
            "\u{FFFD}"
        );
        assert_eq!(
            parse_json_line(r#"{"a":"\ud83d\ude00"}"#).unwrap()["a"],
            "😀"
        );
        assert_eq!(
            parse_json_line(r#"{"a":"\\ud800"}"#).unwrap()["a"],
            "\\ud800"
        );
        assert!(parse_json_line(r#"{"a":"\ud800"#).is_err());
    }

    /// Bytes parse as their lossy UTF-8 decoding would, valid or not.
    #[test]
    fn bytes_parse_as_their_lossy_decoding() {
        let cases: &[&[u8]] = &[
            b"{\"a\":\"plain\"}",
            b"{\"a\":\"\xff\xfe\"}",
            b"{\"a\":\"ok \xe2\x82\"}",
            b"{\"a\":\"\\ud800\"}",
            b"{\"a\":1}\xff",
            b"\xef\xbb\xbf{}",
            b"{\"a\":\"\xc3\xa9\"}",
        ];
        for bytes in cases {
            let mut scratch = String::new();
            assert_eq!(
                parse_borrowed(bytes, &mut scratch)
                    .map(|j| j.to_value())
                    .ok_or(()),
                reference(bytes),
                "{:?}",
                String::from_utf8_lossy(bytes)
            );
        }
    }
}
