//! The one clock and id source: epoch milliseconds for record and event
//! times, time-ordered message ids, random session ids.

use std::time::{SystemTime, UNIX_EPOCH};

/// Milliseconds since the Unix epoch (0 if the clock is before it).
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// A fresh, unique, time-ordered message id (UUID v7).
pub fn new_message_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

/// A fresh random id (UUID v4): session ids and user/message ids, as DSH mints them.
pub fn new_random_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// Epoch milliseconds as RFC 3339 UTC (`2026-12-02T18:34:32.115Z`).
pub fn rfc3339(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let millis = ms.rem_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// `rfc3339`'s text back to epoch milliseconds (`None` for any other shape).
pub fn parse_rfc3339(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    if b.len() != 24 || b[23] != b'Z' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let s = text.get(r)?;
        s.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| s.parse().ok())?
    };
    let seps = [
        (4, b'-'),
        (7, b'-'),
        (10, b'T'),
        (13, b':'),
        (16, b':'),
        (19, b'.'),
    ];
    if seps.iter().any(|(at, c)| b[*at] != *c) {
        return None;
    }
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, min, sec, ms) = (num(11..13)?, num(14..16)?, num(17..19)?, num(20..23)?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) || h > 23 || min > 59 || sec > 59 {
        return None;
    }
    // Days since 1970-01-01 from a civil date (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(((days * 86_400 + h * 3600 + min * 60 + sec) * 1000) + ms)
}

/// A duration for people: `850 ms`, `12 s`, `4 min`, `3 h`, `2 d`.
pub fn human_duration(ms: i64) -> String {
    let ms = ms.max(0);
    match ms {
        0..1_000 => format!("{ms} ms"),
        1_000..60_000 => format!("{} s", ms / 1000),
        60_000..3_600_000 => format!("{} min", ms / 60_000),
        3_600_000..86_400_000 => format!("{} h", ms / 3_600_000),
        _ => format!("{} d", ms / 86_400_000),
    }
}

/// When `t` was, seen at `now`: a duration for the last week (`3 s ago`),
/// else the day (`on 2026-11-02`); a time ahead of the clock is said as
/// its day too (`on 2027-01-15`), never as `0 ms ago`.
pub fn when(now: i64, t: i64) -> String {
    const WEEK: i64 = 7 * 86_400_000;
    let ago = now - t;
    if (0..WEEK).contains(&ago) {
        format!("{} ago", human_duration(ago))
    } else {
        format!("on {}", &rfc3339(t)[..10])
    }
}

/// How long since `t`, seen at `now` (`3 s`), or `since <day>` past a week.
pub fn since(now: i64, t: i64) -> String {
    const WEEK: i64 = 7 * 86_400_000;
    let ago = now - t;
    if (0..WEEK).contains(&ago) {
        human_duration(ago)
    } else {
        format!("since {}", &rfc3339(t)[..10])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_dates() {
        for (ms, want) in [
            (0, "1970-01-01T00:00:00.000Z"),
            (1_796_236_472_115, "2026-12-02T18:34:32.115Z"),
            (951_782_400_000, "2000-02-29T00:00:00.000Z"),
            (-1, "1969-12-31T23:59:59.999Z"),
        ] {
            assert_eq!(rfc3339(ms), want, "{ms}");
        }
    }

    #[test]
    fn rfc3339_reads_back() {
        for ms in [0, 1_796_236_472_115, 951_782_400_000, 4_102_444_799_999] {
            assert_eq!(parse_rfc3339(&rfc3339(ms)), Some(ms), "{ms}");
        }
        for bad in [
            "",
            "2026-12-02",
            "2026-13-02T18:34:32.115Z",
            "2026-12-02T18:34:32.115+01",
        ] {
            assert_eq!(parse_rfc3339(bad), None, "{bad}");
        }
    }

    #[test]
    fn when_and_since() {
        let now = 1_800_000_000_000;
        for (t, w, s) in [
            (now - 3_000, "3 s ago", "3 s"),
            (now - 6 * 86_400_000, "6 d ago", "6 d"),
            (0, "on 1970-01-01", "since 1970-01-01"),
            (now + 5_000, "on 2027-01-15", "since 2027-01-15"),
        ] {
            assert_eq!(when(now, t), w);
            assert_eq!(since(now, t), s);
        }
    }

    #[test]
    fn human_durations() {
        for (ms, want) in [
            (-5, "0 ms"),
            (999, "999 ms"),
            (1_500, "1 s"),
            (61_000, "1 min"),
            (7_200_000, "2 h"),
            (90_000_000, "1 d"),
        ] {
            assert_eq!(human_duration(ms), want);
        }
    }
}
