//! Unsigned LEB128 integers (protobuf's varints): seven bits a byte, the
//! high bit set on every byte but the last. Invariant: `read` gives back
//! exactly what `put` wrote, and never reads past the slice it is given.

/// Append `v`.
pub fn put(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// The integer at `*at`, moving `*at` past it; `None` at the end of the
/// slice or on a value longer than 64 bits.
pub fn read(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut v: u64 = 0;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*at)?;
        *at += 1;
        v |= u64::from(b & 0x7f).checked_shl(shift)?;
        if b & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_put_is_read_back() {
        let cases: &[(u64, &[u8])] = &[
            (0, &[0]),
            (1, &[1]),
            (127, &[0x7f]),
            (128, &[0x80, 1]),
            (300, &[0xac, 2]),
            (
                u64::MAX,
                &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1],
            ),
        ];
        let mut all = Vec::new();
        for (v, want) in cases {
            let mut one = Vec::new();
            put(&mut one, *v);
            assert_eq!(one, *want, "{v}");
            all.extend_from_slice(&one);
        }
        let mut at = 0;
        for (v, _) in cases {
            assert_eq!(read(&all, &mut at), Some(*v));
        }
        assert_eq!(at, all.len());
        assert_eq!(read(&all, &mut at), None, "past the end");
        assert_eq!(read(&[0x80], &mut 0), None, "cut short");
    }
}
