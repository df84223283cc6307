//! A JSON value borrowed from the line it was parsed from, for reading
//! event lines. Strings point into the line unless they hold escapes;
//! objects are key/value vectors in first-insertion order holding the last
//! duplicate's value, as JavaScript's `JSON.parse` builds them; nothing is
//! hashed. `serde_json::Value` with `preserve_order` builds an `IndexMap` and
//! an owned `String` for every key and string of every event: most of what
//! a listing used to spend.

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

/// A parsed JSON value; see the module header.
#[derive(Debug, Clone, PartialEq)]
pub enum Jv<'a> {
    Null,
    Bool(bool),
    Num(Num),
    Str(Cow<'a, str>),
    Arr(Vec<Jv<'a>>),
    Obj(Obj<'a>),
}

/// A number as `serde_json` reads it: an integer when it is one and fits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Num {
    U(u64),
    I(i64),
    F(f64),
}

/// An object's members in first-insertion order, keys unique.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Obj<'a> {
    entries: Vec<(Cow<'a, str>, Jv<'a>)>,
}

static NULL: Jv<'static> = Jv::Null;

/// Objects larger than this find duplicate keys through a hash map: a
/// hostile line of many keys must not cost quadratic time.
const LINEAR_KEYS: usize = 16;

/// Whether two keys are equal, most unequal ones told apart by their length
/// and end bytes without a call to `memcmp`.
#[inline]
pub fn same_key(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    a.len() == b.len()
        && match (a.first(), a.last()) {
            (Some(first), Some(last)) => *first == b[0] && *last == b[b.len() - 1] && a == b,
            _ => true,
        }
}

impl<'a> Obj<'a> {
    pub fn get(&self, key: &str) -> Option<&Jv<'a>> {
        self.entries
            .iter()
            .find(|(k, _)| same_key(k, key))
            .map(|(_, v)| v)
    }
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Jv<'a>> {
        self.entries
            .iter_mut()
            .find(|(k, _)| same_key(k, key))
            .map(|(_, v)| v)
    }
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }
    pub fn len(&self) -> usize {
        self.entries.len()
    }
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|(k, _)| k.as_ref())
    }
    /// Set `key`, keeping its place when it is already there.
    pub fn insert(&mut self, key: impl Into<Cow<'a, str>>, value: Jv<'a>) {
        let key = key.into();
        match self.get_mut(&key) {
            Some(slot) => *slot = value,
            None => self.entries.push((key, value)),
        }
    }
    pub fn remove(&mut self, key: &str) -> Option<Jv<'a>> {
        let at = self.entries.iter().position(|(k, _)| same_key(k, key))?;
        Some(self.entries.remove(at).1)
    }
    /// An object of these members as they are (keys already unique).
    pub fn from_entries(entries: Vec<(Cow<'a, str>, Jv<'a>)>) -> Obj<'a> {
        Obj { entries }
    }
    /// An object of these members, in this order (keys must be unique).
    pub fn of(members: impl IntoIterator<Item = (&'a str, Jv<'a>)>) -> Obj<'a> {
        let mut obj = Obj::default();
        for (k, v) in members {
            obj.insert(k, v);
        }
        obj
    }
}

impl<'a> Jv<'a> {
    pub fn str(s: &'a str) -> Jv<'a> {
        Jv::Str(Cow::Borrowed(s))
    }
    pub fn get(&self, key: &str) -> Option<&Jv<'a>> {
        self.as_object()?.get(key)
    }
    pub fn as_object(&self) -> Option<&Obj<'a>> {
        match self {
            Jv::Obj(o) => Some(o),
            _ => None,
        }
    }
    pub fn as_object_mut(&mut self) -> Option<&mut Obj<'a>> {
        match self {
            Jv::Obj(o) => Some(o),
            _ => None,
        }
    }
    pub fn as_array(&self) -> Option<&[Jv<'a>]> {
        match self {
            Jv::Arr(a) => Some(a),
            _ => None,
        }
    }
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Jv::Str(s) => Some(s),
            _ => None,
        }
    }
    pub fn is_object(&self) -> bool {
        matches!(self, Jv::Obj(_))
    }
    pub fn is_array(&self) -> bool {
        matches!(self, Jv::Arr(_))
    }
    pub fn is_string(&self) -> bool {
        matches!(self, Jv::Str(_))
    }
    pub fn is_number(&self) -> bool {
        matches!(self, Jv::Num(_))
    }
    pub fn is_null(&self) -> bool {
        matches!(self, Jv::Null)
    }
    /// As `serde_json::Value::as_f64`.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Jv::Num(Num::U(u)) => Some(*u as f64),
            Jv::Num(Num::I(i)) => Some(*i as f64),
            Jv::Num(Num::F(f)) => Some(*f),
            _ => None,
        }
    }
    /// As `serde_json::Value::as_i64`.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Jv::Num(Num::U(u)) => i64::try_from(*u).ok(),
            Jv::Num(Num::I(i)) => Some(*i),
            _ => None,
        }
    }
    /// As `serde_json::Value::as_u64`.
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Jv::Num(Num::U(u)) => Some(*u),
            Jv::Num(Num::I(i)) => u64::try_from(*i).ok(),
            _ => None,
        }
    }

    /// The same value as a `serde_json::Value` (for the rare events whose
    /// data is kept or handed to code written for `Value`).
    pub fn to_value(&self) -> Value {
        match self {
            Jv::Null => Value::Null,
            Jv::Bool(b) => Value::Bool(*b),
            Jv::Num(Num::U(u)) => Value::from(*u),
            Jv::Num(Num::I(i)) => Value::from(*i),
            Jv::Num(Num::F(f)) => {
                serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number)
            }
            Jv::Str(s) => Value::String(s.to_string()),
            Jv::Arr(a) => Value::Array(a.iter().map(Jv::to_value).collect()),
            Jv::Obj(o) => Value::Object(
                o.entries
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_value()))
                    .collect(),
            ),
        }
    }

    /// Key-sorted JSON text into `out`: two values write the same text
    /// exactly when they are deep-equal as JavaScript compares them.
    pub fn write_canonical(&self, out: &mut String) {
        match self {
            Jv::Obj(o) => {
                let mut members: Vec<&(Cow<str>, Jv)> = o.entries.iter().collect();
                members.sort_by(|a, b| a.0.cmp(&b.0));
                out.push('{');
                for (n, (k, v)) in members.into_iter().enumerate() {
                    if n > 0 {
                        out.push(',');
                    }
                    write_json_string(k, out);
                    out.push(':');
                    v.write_canonical(out);
                }
                out.push('}');
            }
            Jv::Arr(a) => {
                out.push('[');
                for (n, v) in a.iter().enumerate() {
                    if n > 0 {
                        out.push(',');
                    }
                    v.write_canonical(out);
                }
                out.push(']');
            }
            // Numbers compare as JavaScript numbers do.
            Jv::Num(_) => out.push_str(&self.as_f64().unwrap_or(0.0).to_string()),
            Jv::Str(s) => write_json_string(s, out),
            Jv::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Jv::Null => out.push_str("null"),
        }
    }
}

fn write_json_string(s: &str, out: &mut String) {
    out.push_str(&serde_json::to_string(s).unwrap_or_default());
}

impl<'a> std::ops::Index<&str> for Jv<'a> {
    type Output = Jv<'a>;
    /// `Null` for a missing key or a non-object, as `Value` indexes.
    fn index(&self, key: &str) -> &Jv<'a> {
        self.get(key).unwrap_or(&NULL)
    }
}

impl<'a> std::ops::Index<&str> for Obj<'a> {
    type Output = Jv<'a>;
    fn index(&self, key: &str) -> &Jv<'a> {
        self.get(key).unwrap_or(&NULL)
    }
}

impl From<i64> for Jv<'_> {
    fn from(i: i64) -> Self {
        if i >= 0 {
            Jv::Num(Num::U(i as u64))
        } else {
            Jv::Num(Num::I(i))
        }
    }
}

/// A string that borrows from the input when it holds no escapes.
struct CowStr<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for CowStr<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = CowStr<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Self::Value, E> {
                Ok(CowStr(Cow::Borrowed(s)))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Self::Value, E> {
                Ok(CowStr(Cow::Owned(s.to_string())))
            }
            fn visit_string<E: de::Error>(self, s: String) -> Result<Self::Value, E> {
                Ok(CowStr(Cow::Owned(s)))
            }
        }
        d.deserialize_str(V)
    }
}

impl<'de> Deserialize<'de> for Jv<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(JvVisitor)
    }
}

struct JvVisitor;

impl<'de> Visitor<'de> for JvVisitor {
    type Value = Jv<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, b: bool) -> Result<Jv<'de>, E> {
        Ok(Jv::Bool(b))
    }
    fn visit_i64<E>(self, i: i64) -> Result<Jv<'de>, E> {
        Ok(Jv::Num(Num::I(i)))
    }
    fn visit_u64<E>(self, u: u64) -> Result<Jv<'de>, E> {
        Ok(Jv::Num(Num::U(u)))
    }
    fn visit_f64<E>(self, f: f64) -> Result<Jv<'de>, E> {
        Ok(Jv::Num(Num::F(f)))
    }
    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Jv<'de>, E> {
        Ok(Jv::Str(Cow::Borrowed(s)))
    }
    fn visit_str<E>(self, s: &str) -> Result<Jv<'de>, E> {
        Ok(Jv::Str(Cow::Owned(s.to_string())))
    }
    fn visit_string<E>(self, s: String) -> Result<Jv<'de>, E> {
        Ok(Jv::Str(Cow::Owned(s)))
    }
    fn visit_unit<E>(self) -> Result<Jv<'de>, E> {
        Ok(Jv::Null)
    }
    fn visit_none<E>(self) -> Result<Jv<'de>, E> {
        Ok(Jv::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Jv<'de>, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Jv::Arr(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Jv<'de>, A::Error> {
        // Most objects of an event line hold up to 8 members: one
        // allocation, not the 4-then-8 growth.
        let mut entries: Vec<(Cow<'de, str>, Jv<'de>)> = Vec::with_capacity(8);
        let mut index: Option<HashMap<Cow<'de, str>, usize>> = None;
        while let Some(CowStr(key)) = map.next_key()? {
            let value: Jv<'de> = map.next_value()?;
            let at = if entries.len() < LINEAR_KEYS {
                entries.iter().position(|(k, _)| *k == key)
            } else {
                let index = index.get_or_insert_with(|| {
                    entries
                        .iter()
                        .enumerate()
                        .map(|(n, (k, _))| (k.clone(), n))
                        .collect()
                });
                index.get(&key).copied()
            };
            match at {
                // JavaScript keeps the first position and the last value.
                Some(n) => entries[n].1 = value,
                None => {
                    if let Some(index) = &mut index {
                        index.insert(key.clone(), entries.len());
                    }
                    entries.push((key, value));
                }
            }
        }
        Ok(Jv::Obj(Obj { entries }))
    }
}

#[cfg(test)]
pub mod tests {
    use super::*;

    /// 40 members of 23 keys, repeats included: past the linear search for
    /// duplicate keys.
    pub fn many_keys() -> String {
        (0..40)
            .map(|n| format!("\"k{}\":{n}", n % 23))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Whatever `serde_json::Value` (with `preserve_order`) makes of a text,
    /// a `Jv` makes the same: same members, order and numbers.
    #[test]
    fn reads_as_value_reads() {
        let many = many_keys();
        let cases = [
            r#"{"a":1,"b":[true,false,null],"c":{"d":"e"}}"#.to_string(),
            r#"{"a":1,"b":2,"a":3}"#.to_string(),
            r#"{"esc\"aped":"x\ny\u00e9","n":-0,"f":1.5,"big":18446744073709551616,"neg":-7}"#
                .to_string(),
            format!("{{{many}}}"),
            r#"[1,"two",{"three":3}]"#.to_string(),
            "\"just a string\"".to_string(),
            "12".to_string(),
            "{}".to_string(),
            "{\"a\":1".to_string(),
            "{\"a\":1e400}".to_string(),
            "{\"a\":\"\\ud800\"}".to_string(),
        ];
        for text in &cases {
            let value = serde_json::from_str::<Value>(text).map_err(|_| ());
            let jv = serde_json::from_str::<Jv>(text)
                .map(|j| j.to_value())
                .map_err(|_| ());
            assert_eq!(jv, value, "{text}");
            if let Ok(v) = &value {
                let jv = serde_json::from_str::<Jv>(text).unwrap().to_value();
                assert_eq!(
                    serde_json::to_string(&jv).unwrap(),
                    serde_json::to_string(v).unwrap(),
                    "member order of {text}"
                );
            }
        }
    }

    #[test]
    fn keys_compare_as_strings_do() {
        let keys = [
            "", "a", "b", "ab", "ba", "aa", "abc", "axc", "abd", "type", "time", "\u{e9}",
        ];
        for a in keys {
            for b in keys {
                assert_eq!(same_key(a, b), a == b, "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn accessors_follow_value() {
        let text = r#"{"u":3,"i":-3,"f":2.0,"s":"x","o":{"k":[1]}}"#;
        let jv: Jv = serde_json::from_str(text).unwrap();
        let v: Value = serde_json::from_str(text).unwrap();
        for key in ["u", "i", "f", "s", "o", "missing"] {
            assert_eq!(jv[key].as_f64(), v[key].as_f64(), "{key}");
            assert_eq!(jv[key].as_i64(), v[key].as_i64(), "{key}");
            assert_eq!(jv[key].as_u64(), v[key].as_u64(), "{key}");
            assert_eq!(jv[key].as_str(), v[key].as_str(), "{key}");
            assert_eq!(jv[key].is_object(), v[key].is_object(), "{key}");
            assert_eq!(jv[key].is_null(), v[key].is_null(), "{key}");
        }
        assert!(matches!(jv["s"], Jv::Str(Cow::Borrowed(_))));
    }

    #[test]
    fn canonical_text_ignores_order_only() {
        let canon = |t: &str| {
            let mut out = String::new();
            serde_json::from_str::<Jv>(t)
                .unwrap()
                .write_canonical(&mut out);
            out
        };
        assert_eq!(
            canon(r#"{"a":1,"b":[2,{"c":3}]}"#),
            canon(r#"{"b":[2,{"c":3.0}],"a":1}"#)
        );
        assert_ne!(canon(r#"{"a":1}"#), canon(r#"{"a":"1"}"#));
        assert_ne!(canon(r#"{"a":[1,2]}"#), canon(r#"{"a":[2,1]}"#));
    }
}
