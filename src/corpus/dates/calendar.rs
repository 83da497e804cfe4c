//! Calendar dates without a date crate: ISO `YYYY-MM-DD` from a commit's Unix time (UTC) and
//! back, and a date as a decimal year for `report --by first_seen`. The day arithmetic is the
//! proleptic Gregorian "days from civil" of Howard Hinnant's date algorithms.

/// Days since 1970-01-01 of a Gregorian date.
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = i64::from((m + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The Gregorian date of a day number (days since 1970-01-01).
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn month_days(y: i64, m: u32) -> u32 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The UTC date of a Unix time, as `YYYY-MM-DD`.
pub fn iso_date(unix_seconds: i64) -> String {
    let (y, m, d) = civil_from_days(unix_seconds.div_euclid(86_400));
    format!("{y:04}-{m:02}-{d:02}")
}

/// `YYYY-MM-DD` (a real day of the Gregorian calendar) → (year, month, day).
pub fn parse_iso_date(s: &str) -> Option<(i64, u32, u32)> {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let digits = |r: std::ops::Range<usize>| -> Option<u32> {
        let part = s.get(r)?;
        part.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| part.parse().ok())?
    };
    let (y, m, d) = (i64::from(digits(0..4)?), digits(5..7)?, digits(8..10)?);
    ((1..=12).contains(&m) && (1..=month_days(y, m)).contains(&d)).then_some((y, m, d))
}

/// A date as a decimal year: `Y + ordinal / days in Y`, so that 1 January is just above `Y`
/// and 31 December is `Y + 1` exactly. A year is then the interval `(Y, Y + 1]`, the bins'
/// own convention, and "on or before the cut-off" is `value <= decimal_year(cutoff)`.
pub fn decimal_year(y: i64, m: u32, d: u32) -> f64 {
    let ordinal = days_from_civil(y, m, d) - days_from_civil(y, 1, 1) + 1;
    let len = if is_leap(y) { 366.0 } else { 365.0 };
    y as f64 + ordinal as f64 / len
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_round_trip_and_known_dates() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        for z in (-800_000..800_000).step_by(997) {
            let (y, m, d) = civil_from_days(z);
            assert_eq!(days_from_civil(y, m, d), z);
        }
        // `date -u -d @1700000000` is 2023-11-14 22:13:20.
        assert_eq!(iso_date(1_700_000_000), "2023-11-14");
        assert_eq!(iso_date(-1), "1969-12-31");
    }

    #[test]
    fn parsing_refuses_what_is_not_a_day() {
        assert_eq!(parse_iso_date("2024-02-29"), Some((2024, 2, 29)));
        for bad in [
            "2023-02-29",
            "2023-13-01",
            "2023-00-10",
            "2023-1-01",
            "20230101",
            "2023-01-+1",
            "",
        ] {
            assert_eq!(parse_iso_date(bad), None, "{bad}");
        }
    }

    #[test]
    fn years_are_half_open_on_the_left() {
        assert!((decimal_year(2023, 12, 31) - 2024.0).abs() < 1e-12);
        let jan1 = decimal_year(2024, 1, 1);
        assert!(jan1 > 2024.0 && jan1 < 2024.01);
        assert!(decimal_year(2024, 6, 1) < decimal_year(2024, 6, 2));
    }
}
