//! JSON written a piece at a time: an array whose elements are made and
//! written one by one, so a listing of 100,000 rows never exists as one
//! `serde_json::Value` (several hundred bytes a row) beside its rows. The
//! text is byte-identical to `serde_json::to_string` of the whole array.

use serde::Serialize;
use serde_json::Value;

/// `value` as compact JSON text (what `serde_json::to_string` writes).
pub fn text(value: &impl Serialize) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// The array of `items` handed to `out` an element at a time.
pub fn array_to(items: impl IntoIterator<Item = Value>, out: &mut dyn FnMut(&str)) {
    array_with(items, out, |item, out| out(&text(&item)));
}

/// An array whose elements `write` hands to `out` itself, each in pieces
/// if it likes.
pub fn array_with<T>(
    items: impl IntoIterator<Item = T>,
    out: &mut dyn FnMut(&str),
    mut write: impl FnMut(T, &mut dyn FnMut(&str)),
) {
    out("[");
    for (n, item) in items.into_iter().enumerate() {
        if n > 0 {
            out(",");
        }
        write(item, out);
    }
    out("]");
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn arrays_read_as_serde_json_writes_them() {
        let cases = [
            vec![],
            vec![json!({"a": 1})],
            vec![json!({"b": "x", "a": [1, 2]}), json!(null), json!("s\"q")],
        ];
        for items in cases {
            let mut streamed = String::new();
            array_to(items.clone(), &mut |t| streamed.push_str(t));
            assert_eq!(streamed, text(&Value::Array(items)));
        }
    }
}
