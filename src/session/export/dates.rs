//! Dates in exports: UTC, ISO 8601.

use time::OffsetDateTime;

fn at(ms: u64) -> Option<OffsetDateTime> {
    OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000).ok()
}

/// `2025-03-01` for a Unix time in milliseconds.
pub fn iso_date(ms: u64) -> String {
    at(ms).map_or_else(String::new, |t| format!("{:04}-{:02}-{:02}", t.year(), u8::from(t.month()), t.day()))
}

/// `2025-03-01 14:05 UTC` for a Unix time in milliseconds.
pub fn iso_datetime(ms: u64) -> String {
    at(ms).map_or_else(String::new, |t| {
        format!("{:04}-{:02}-{:02} {:02}:{:02} UTC", t.year(), u8::from(t.month()), t.day(), t.hour(), t.minute())
    })
}

/// `[year, month, day]` for a Unix time in milliseconds.
pub fn date_parts(ms: u64) -> Vec<i64> {
    at(ms).map_or_else(Vec::new, |t| vec![i64::from(t.year()), i64::from(u8::from(t.month())), i64::from(t.day())])
}

/// The leading `YYYY`, `YYYY-MM` or `YYYY-MM-DD` of a published date.
pub fn published_parts(published: &str) -> Vec<i64> {
    published
        .trim()
        .get(..10.min(published.trim().len()))
        .unwrap_or("")
        .split('-')
        .map_while(|p| p.parse::<i64>().ok())
        .take(3)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_utc_dates() {
        // 2024-02-29 12:34:56 UTC
        let ms = 1_709_210_096_000;
        assert_eq!(iso_date(ms), "2024-02-29");
        assert_eq!(iso_datetime(ms), "2024-02-29 12:34 UTC");
        assert_eq!(date_parts(ms), vec![2024, 2, 29]);
        assert_eq!(published_parts("2023-07-04T10:00:00Z"), vec![2023, 7, 4]);
        assert_eq!(published_parts("2021"), vec![2021]);
        assert!(published_parts("yesterday").is_empty());
    }
}
