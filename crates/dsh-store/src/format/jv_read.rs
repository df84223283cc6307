//! Reads one JSON text into a [`Jv`] directly. It accepts exactly the texts
//! `serde_json::from_slice::<Jv>` accepts and builds the same value, but
//! without serde's visitor machinery: the whole line's UTF-8 is checked once
//! (not string by string), and strings are found eight bytes at a time.
//! Numbers other than plain integers are handed to
//! `serde_json` itself, so every float, huge integer and out-of-range
//! exponent reads as it always has.

use crate::format::jv::{Jv, Num, Obj, same_key};
use std::borrow::Cow;
use std::collections::HashMap;

/// `serde_json` refuses the 128th level of nesting.
const MAX_DEPTH: usize = 127;

/// Objects larger than this find duplicate keys through a hash map: a
/// hostile line of many keys must not cost quadratic time.
const LINEAR_KEYS: usize = 16;

type Member<'a> = (Cow<'a, str>, Jv<'a>);

/// The value of `bytes`, or `None` where `serde_json::from_slice` would fail.
pub fn parse(bytes: &[u8]) -> Option<Jv<'_>> {
    let text = std::str::from_utf8(bytes).ok()?;
    let mut reader = Reader {
        text,
        at: 0,
        depth: 0,
    };
    reader.skip_ws();
    let value = reader.value()?;
    reader.skip_ws();
    (reader.at == bytes.len()).then_some(value)
}

struct Reader<'a> {
    text: &'a str,
    at: usize,
    depth: usize,
}

const ONES: u64 = u64::from_le_bytes([1; 8]);
const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);

/// The high bit of the first byte of `word` (read little-endian) that ends
/// a plain run of string text: a quote, a backslash or a control character.
/// Bits above it may be set too (a borrow runs on from a marked byte), but
/// never one below it: only the lowest set bit means anything.
fn run_enders(word: u64) -> u64 {
    let zero = |v: u64| v.wrapping_sub(ONES) & !v;
    let quote = zero(word ^ (ONES * u64::from(b'"')));
    let backslash = zero(word ^ (ONES * u64::from(b'\\')));
    let control = word.wrapping_sub(ONES * 0x20) & !word;
    (quote | backslash | control) & HIGHS
}

impl<'a> Reader<'a> {
    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    fn peek(&self) -> Option<u8> {
        self.bytes().get(self.at).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.peek() {
            self.at += 1;
        }
    }

    fn eat(&mut self, word: &[u8]) -> Option<()> {
        let end = self.at + word.len();
        (self.bytes().get(self.at..end)? == word).then(|| self.at = end)
    }

    fn value(&mut self) -> Option<Jv<'a>> {
        match self.peek()? {
            b'n' => self.eat(b"null").map(|()| Jv::Null),
            b't' => self.eat(b"true").map(|()| Jv::Bool(true)),
            b'f' => self.eat(b"false").map(|()| Jv::Bool(false)),
            b'"' => {
                self.at += 1;
                self.string().map(Jv::Str)
            }
            b'[' => self.nested(Self::array),
            b'{' => self.nested(Self::object),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    fn nested(&mut self, read: fn(&mut Self) -> Option<Jv<'a>>) -> Option<Jv<'a>> {
        if self.depth == MAX_DEPTH {
            return None;
        }
        self.depth += 1;
        self.at += 1;
        let value = read(self);
        self.depth -= 1;
        value
    }

    fn array(&mut self) -> Option<Jv<'a>> {
        if self.closes_at_once(b']')? {
            return Some(Jv::Arr(Vec::new()));
        }
        let mut items = Vec::with_capacity(4);
        loop {
            items.push(self.value()?);
            if self.closes_after_item(b']')? {
                return Some(Jv::Arr(items));
            }
        }
    }

    fn object(&mut self) -> Option<Jv<'a>> {
        if self.closes_at_once(b'}')? {
            return Some(Jv::Obj(Obj::default()));
        }
        // Most objects of an event line hold up to 8 members: one
        // allocation, not the 4-then-8 growth.
        let mut members = Vec::with_capacity(8);
        let mut index = None;
        loop {
            if self.peek()? != b'"' {
                return None;
            }
            self.at += 1;
            let key = self.string()?;
            self.skip_ws();
            if self.peek()? != b':' {
                return None;
            }
            self.at += 1;
            self.skip_ws();
            let value = self.value()?;
            insert(&mut members, &mut index, key, value);
            if self.closes_after_item(b'}')? {
                return Some(Jv::Obj(Obj::from_entries(members)));
            }
        }
    }

    /// Just inside a container: whether it closes at once (`close` read).
    fn closes_at_once(&mut self, close: u8) -> Option<bool> {
        self.skip_ws();
        let closed = self.peek()? == close;
        self.at += usize::from(closed);
        Some(closed)
    }

    /// After an item: `true` past the container's `close`, `false` past a
    /// comma (another item follows), `None` for anything else.
    fn closes_after_item(&mut self, close: u8) -> Option<bool> {
        self.skip_ws();
        match self.peek()? {
            b',' => {
                self.at += 1;
                self.skip_ws();
                Some(false)
            }
            c if c == close => {
                self.at += 1;
                Some(true)
            }
            _ => None,
        }
    }

    /// The rest of a string whose opening quote was just read.
    fn string(&mut self) -> Option<Cow<'a, str>> {
        let start = self.at;
        let end = self.run_end(start);
        match *self.bytes().get(end)? {
            b'"' => {
                self.at = end + 1;
                Some(Cow::Borrowed(&self.text[start..end]))
            }
            b'\\' => {
                let mut out = String::with_capacity(end - start + 16);
                out.push_str(&self.text[start..end]);
                self.at = end;
                self.escaped(out).map(Cow::Owned)
            }
            _ => None,
        }
    }

    /// Where the plain text from `from` ends: at a quote, a backslash, a
    /// control character or the end of the line.
    fn run_end(&self, from: usize) -> usize {
        let bytes = self.bytes();
        let mut i = from;
        while let Some(chunk) = bytes.get(i..i + 8) {
            let word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
            let enders = run_enders(word);
            if enders != 0 {
                return i + (enders.trailing_zeros() / 8) as usize;
            }
            i += 8;
        }
        while let Some(&b) = bytes.get(i) {
            if b == b'"' || b == b'\\' || b < 0x20 {
                break;
            }
            i += 1;
        }
        i
    }

    /// A string from an escape on; `out` holds the text before it.
    fn escaped(&mut self, mut out: String) -> Option<String> {
        loop {
            match *self.bytes().get(self.at)? {
                b'"' => {
                    self.at += 1;
                    return Some(out);
                }
                b'\\' => {
                    self.at += 1;
                    self.escape(&mut out)?;
                }
                _ => return None,
            }
            let end = self.run_end(self.at);
            out.push_str(&self.text[self.at..end]);
            self.at = end;
        }
    }

    /// One escape after its backslash, as `serde_json` reads it: surrogate
    /// escapes must pair (the caller's fallback rewrites lone ones).
    fn escape(&mut self, out: &mut String) -> Option<()> {
        let c = self.peek()?;
        self.at += 1;
        let plain = match c {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let high = self.hex4()?;
                let code = match high {
                    0xDC00..=0xDFFF => return None,
                    0xD800..=0xDBFF => {
                        self.eat(b"\\u")?;
                        let low = self.hex4()?;
                        if !(0xDC00..=0xDFFF).contains(&low) {
                            return None;
                        }
                        0x1_0000 + ((u32::from(high) - 0xD800) << 10) + (u32::from(low) - 0xDC00)
                    }
                    n => u32::from(n),
                };
                char::from_u32(code)?
            }
            _ => return None,
        };
        out.push(plain);
        Some(())
    }

    fn hex4(&mut self) -> Option<u16> {
        let digits = self.bytes().get(self.at..self.at + 4)?;
        let mut n = 0u16;
        for &d in digits {
            n = n * 16 + char::from(d).to_digit(16)? as u16;
        }
        self.at += 4;
        Some(n)
    }

    /// A number: plain integers here, anything else as `serde_json` reads
    /// the same token (every character a number can hold, taken greedily:
    /// a token that is not one number makes the line invalid either way).
    fn number(&mut self) -> Option<Jv<'a>> {
        let bytes = self.bytes();
        let start = self.at;
        let negative = bytes[start] == b'-';
        let digits_from = start + usize::from(negative);
        let mut i = digits_from;
        let mut value: u64 = 0;
        while let Some(&d @ b'0'..=b'9') = bytes.get(i) {
            value = value.wrapping_mul(10).wrapping_add(u64::from(d - b'0'));
            i += 1;
        }
        let digits = i - digits_from;
        let plain = !matches!(bytes.get(i), Some(b'.' | b'e' | b'E' | b'+' | b'-'))
            && (1..=18).contains(&digits)
            && (bytes[digits_from] != b'0' || digits == 1)
            && !(negative && value == 0);
        if plain {
            self.at = i;
            return Some(Jv::Num(if negative {
                Num::I(-(value as i64))
            } else {
                Num::U(value)
            }));
        }
        while let Some(b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-') = bytes.get(i) {
            i += 1;
        }
        let number = serde_json::from_str::<Jv>(&self.text[start..i]).ok()?;
        self.at = i;
        Some(number)
    }
}

/// Add a member; JavaScript keeps a repeated key's first position and its
/// last value.
fn insert<'a>(
    members: &mut Vec<Member<'a>>,
    index: &mut Option<HashMap<Cow<'a, str>, usize>>,
    key: Cow<'a, str>,
    value: Jv<'a>,
) {
    let at = if members.len() < LINEAR_KEYS {
        members.iter().position(|(k, _)| same_key(k, &key))
    } else {
        index
            .get_or_insert_with(|| {
                members
                    .iter()
                    .enumerate()
                    .map(|(n, (k, _))| (k.clone(), n))
                    .collect()
            })
            .get(&key)
            .copied()
    };
    match at {
        Some(n) => members[n].1 = value,
        None => {
            if let Some(index) = index {
                index.insert(key.clone(), members.len());
            }
            members.push((key, value));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `serde_json` makes of a text, as strictly as it can be
    /// compared: the Debug text keeps `-0.0` apart from `0`, and strings
    /// apart from numbers.
    fn serde(bytes: &[u8]) -> Option<String> {
        serde_json::from_slice::<Jv>(bytes)
            .ok()
            .map(|v| format!("{v:?}"))
    }

    fn ours(bytes: &[u8]) -> Option<String> {
        parse(bytes).map(|v| format!("{v:?}"))
    }

    fn nest(depth: usize) -> String {
        format!("{}{}", "[".repeat(depth), "]".repeat(depth))
    }

    #[test]
    fn reads_what_serde_json_reads() {
        let many = crate::format::jv::tests::many_keys();
        let cases: Vec<String> = [
            r#"{"a":1,"b":[true,false,null],"c":{"d":"e"}}"#,
            r#"{"a":1,"b":2,"a":3}"#,
            r#"{"a":{"x":1},"b":[{"y":[2,{"z":3}]}],"a":[4]}"#,
            r#"{"esc\"aped":"x\ny\u00e9\/\b\f\r\t\\","n":-0,"f":1.5}"#,
            r#" { "spaced" : [ 1 , 2 ] } "#,
            "\t\r\n{}\n",
            r#""just a string""#,
            r#""a long plain string that is far longer than one eight-byte word of text""#,
            r#""long text before an \n escape and a long text after the escape too""#,
            "\"\u{e9}t\u{e9} \u{1F600} in UTF-8, longer than a word\"",
            r#""\ud83d\ude00""#,
            r#""\uD83D\uDE00 upper""#,
            r#""\ud800""#,
            r#""\udc00""#,
            r#""\ud800\u0041""#,
            r#""\ud800\ud800""#,
            r#""\ud800x""#,
            r#""\ud800\n""#,
            r#""\u12""#,
            r#""\u12g4""#,
            r#""\x""#,
            "\"tab\tinside\"",
            "\"nul\u{0}inside\"",
            "\"del\u{7f}inside\"",
            r#""unterminated"#,
            r#""ends in a backslash\"#,
            "0",
            "-0",
            "00",
            "-",
            "-a",
            "01",
            "1.",
            "1.5",
            ".5",
            "1e5",
            "1E+5",
            "1e-5",
            "1e",
            "1e400",
            "-1e400",
            "1.5e3x",
            "123456789012345678",
            "1234567890123456789",
            "12345678901234567890",
            "18446744073709551615",
            "18446744073709551616",
            "-123456789012345678",
            "-9223372036854775808",
            "-9223372036854775809",
            "[1,-2,3.25,-0.0,0e0]",
            "[1-2]",
            "[1e5-3]",
            "[1,]",
            "[,1]",
            "[1 2]",
            "[",
            "]",
            "[]",
            "[ ]",
            "{}",
            "{ }",
            r#"{"a":1,}"#,
            r#"{"a" 1}"#,
            r#"{a:1}"#,
            r#"{"a":}"#,
            r#"{"a":1"#,
            r#"{"a":1}}"#,
            r#"{"a":1} x"#,
            "null",
            "nul",
            "nulll",
            "true",
            "tru",
            "false",
            "falsey",
            "",
            "   ",
            "\u{feff}{}",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([format!("{{{many}}}"), nest(126), nest(127), nest(128)])
        .collect();
        for text in &cases {
            assert_eq!(ours(text.as_bytes()), serde(text.as_bytes()), "{text:?}");
        }
    }

    #[test]
    fn invalid_utf8_is_refused_as_serde_json_refuses_it() {
        let cases: &[&[u8]] = &[
            b"\"\xff\"",
            b"\"ok \xe2\x82\"",
            b"{\"a\":1}\xff",
            b"\xff",
            b"\"\xc3\xa9\"",
        ];
        for bytes in cases {
            assert_eq!(ours(bytes), serde(bytes), "{bytes:?}");
        }
    }

    /// Random edits of event-shaped lines: whatever `serde_json` accepts or
    /// refuses, this reader does too, with the same value.
    #[test]
    fn edited_lines_read_as_serde_json_reads_them() {
        let seeds: &[&[u8]] = &[
            br#"{"type":"user/message","seq":3,"time":1700000000000,"data":{"content":[{"type":"text","text":"hi \"there\"\n"}],"n":-12.5e-3}}"#,
            br#"{"v":1,"events":[{"type":"turn/end","seq":0,"time":1,"data":null}],"x":[true,false,{"\u00e9":"\ud83d\ude00"}]}"#,
        ];
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        let alphabet = b"{}[]\":,\\u0123456789abcdefABCDEF.eE+- \n\tntrfl\x00\x1f\xc3\xa9\xff";
        let mut accepted = 0;
        for round in 0..20_000 {
            let mut line = seeds[round % seeds.len()].to_vec();
            for _ in 0..=(next() % 3) {
                let at = (next() as usize) % (line.len() + 1);
                let byte = alphabet[(next() as usize) % alphabet.len()];
                match next() % 3 {
                    0 if at < line.len() => line[at] = byte,
                    1 if at < line.len() => {
                        line.remove(at);
                    }
                    _ => line.insert(at, byte),
                }
            }
            let expected = serde(&line);
            accepted += usize::from(expected.is_some());
            assert_eq!(
                ours(&line),
                expected,
                "{:?}",
                String::from_utf8_lossy(&line)
            );
        }
        // The edits must leave both outcomes common, or the test proves little.
        assert!(accepted > 1_000 && accepted < 19_000, "{accepted}");
    }

    /// The first ender of a word, wherever it is and whatever follows it.
    #[test]
    fn run_enders_find_the_first_ender() {
        let ends = |b: u8| b == b'"' || b == b'\\' || b < 0x20;
        let places = [(0, 1), (0, 7), (3, 4), (2, 5), (6, 7)];
        for first in 0..=255u8 {
            for second in 0..=255u8 {
                for (p, q) in places {
                    let mut word = [b'a'; 8];
                    word[p] = first;
                    word[q] = second;
                    let expected = [p, q].into_iter().find(|&at| ends(word[at]));
                    let marks = run_enders(u64::from_le_bytes(word));
                    let found = (marks != 0).then(|| marks.trailing_zeros() as usize / 8);
                    assert_eq!(found, expected, "{word:?}");
                }
            }
        }
    }

    #[test]
    fn plain_strings_borrow_from_the_line() {
        let text = br#"{"key":"value","esc":"a\nb"}"#;
        let Some(Jv::Obj(obj)) = parse(text) else {
            panic!("not an object");
        };
        assert!(matches!(
            obj.get("key"),
            Some(Jv::Str(Cow::Borrowed("value")))
        ));
        assert!(matches!(obj.get("esc"), Some(Jv::Str(Cow::Owned(_)))));
    }
}
