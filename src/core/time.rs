//! Durations a caller gives (timeouts, graces), which may be anything a JS
//! number can hold: one rule for checking them, and deadlines that cannot
//! overflow.
//!
//! ```
//! use std::time::{Duration, Instant};
//! use ptypilot::core::time;
//! assert_eq!(time::millis("timeoutMs", 1500.0).unwrap(), Duration::from_millis(1500));
//! assert!(time::millis("timeoutMs", 1e300).is_err());
//! let now = Instant::now();
//! assert!(time::later(now, Duration::MAX) > now + Duration::from_secs(3600));
//! ```

use std::time::{Duration, Instant};

use super::error::{Error, Result, js_number};

/// The largest number of milliseconds a caller may give: 1e12 (about 31
/// years, for "practically never").
pub const MAX_MILLIS: f64 = 1e12;

/// How far [`later`] puts a deadline that would overflow: further than any
/// wait a caller may ask for.
const FAR: Duration = Duration::from_secs(1 << 32);

/// `ms` milliseconds, checked: a finite number from 0 to [`MAX_MILLIS`]
/// (fractions allowed), else `ERR_INVALID_ARG` naming `name` and the value.
pub fn millis(name: &str, ms: f64) -> Result<Duration> {
    if ms.is_finite() && (0.0..=MAX_MILLIS).contains(&ms) {
        Ok(Duration::from_secs_f64(ms / 1000.0))
    } else {
        Err(Error::invalid_arg(format!(
            "{name} must be a non-negative number of milliseconds, got {} (at most 1e12)",
            js_number(ms)
        )))
    }
}

/// `now + d`, or a deadline that never comes in practice when that
/// overflows (`d` can be any `Duration`).
pub fn later(now: Instant, d: Duration) -> Instant {
    now.checked_add(d)
        .or_else(|| now.checked_add(FAR))
        .unwrap_or(now)
}

/// [`later`] for tokio's clock.
pub fn later_tokio(now: tokio::time::Instant, d: Duration) -> tokio::time::Instant {
    tokio::time::Instant::from_std(later(now.into_std(), d))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn millis_are_checked_with_the_name_and_value() {
        assert_eq!(millis("a", 0.0), Ok(Duration::ZERO));
        assert_eq!(millis("a", 0.5), Ok(Duration::from_micros(500)));
        assert_eq!(
            millis("a", MAX_MILLIS),
            Ok(Duration::from_secs(1_000_000_000))
        );
        for bad in [
            -1.0,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1e300,
            1.0e12 + 1.0,
        ] {
            let err = millis("options.timeoutMs", bad).unwrap_err();
            assert_eq!(err.code.as_str(), "ERR_INVALID_ARG");
            assert!(
                err.message.starts_with("options.timeoutMs must be"),
                "{}",
                err.message
            );
            assert!(
                err.message.contains(&format!("got {} (", js_number(bad))),
                "{}",
                err.message
            );
        }
    }

    #[test]
    fn deadlines_do_not_overflow() {
        let now = Instant::now();
        assert_eq!(
            later(now, Duration::from_secs(1)),
            now + Duration::from_secs(1)
        );
        assert!(later(now, Duration::MAX) >= now + Duration::from_secs(1 << 31));
        let t = tokio::time::Instant::now();
        assert!(later_tokio(t, Duration::MAX) > t);
    }
}
