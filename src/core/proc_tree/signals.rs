//! Signal names and numbers (`SIGTERM`, `TERM`, `15`), as the platform's C
//! library numbers them (`nix::sys::signal::Signal` follows the target).

use crate::core::signal::Signal;

use crate::core::error::{Error, Result};

/// A signal from its name (`"SIGTERM"`, `"TERM"`, case-insensitive) or number (`"15"`).
pub fn parse_signal(name: &str) -> Result<Signal> {
    let trimmed = name.trim();
    if let Ok(n) = trimmed.parse::<i32>() {
        return signal_from_number(n);
    }
    let upper = trimmed.to_ascii_uppercase();
    let full = if upper.starts_with("SIG") {
        upper
    } else {
        format!("SIG{upper}")
    };
    full.parse::<Signal>().map_err(|_| {
        let known: Vec<&str> = Signal::iterator().map(|s| s.as_str()).collect();
        Error::invalid_arg(format!(
            "unknown signal {name:?}; expected one of {}",
            known.join(", ")
        ))
    })
}

/// A signal from its number, e.g. 15 for `SIGTERM`.
pub fn signal_from_number(n: i32) -> Result<Signal> {
    Signal::try_from(n).map_err(|_| Error::invalid_arg(format!("unknown signal number {n}")))
}

/// The name of a signal number, e.g. `"SIGKILL"` for 9.
pub fn signal_name(signo: i32) -> String {
    Signal::try_from(signo).map_or_else(|_| format!("SIG{signo}"), |s| s.as_str().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::error::ErrorCode;

    #[test]
    fn signal_names_and_numbers() {
        assert_eq!(parse_signal("SIGTERM").unwrap(), Signal::SIGTERM);
        assert_eq!(parse_signal("term").unwrap(), Signal::SIGTERM);
        assert_eq!(parse_signal(" sigint ").unwrap(), Signal::SIGINT);
        assert_eq!(parse_signal("9").unwrap(), Signal::SIGKILL);
        let err = parse_signal("SIGNOPE").unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArg);
        assert!(err.message.contains("SIGNOPE") && err.message.contains("SIGKILL"));
        let err = parse_signal("999").unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArg);
        assert!(err.message.contains("999"));
        assert!(parse_signal("").is_err());
        assert_eq!(signal_from_number(15).unwrap(), Signal::SIGTERM);
        assert!(signal_from_number(0).is_err());
        assert_eq!(signal_name(9), "SIGKILL");
        assert_eq!(signal_name(15), "SIGTERM");
    }
}
