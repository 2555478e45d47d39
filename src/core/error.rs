//! The error codes every public failure carries.
//!
//! A failure is an [`Error`]: a stable [`ErrorCode`] that callers match on
//! (`err.code === 'ERR_SPAWN'` in JS), a message that names the offending
//! value, and for spawn failures the OS errno and the path involved.

use std::fmt;

/// Stable error codes; the JS `code` property is [`ErrorCode::as_str`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// A bad option: wrong type, size out of range, unknown key name.
    InvalidArg,
    /// The program could not be started: not found, not executable, bad cwd.
    Spawn,
    /// The session or process is not running (never started, or exited).
    NotRunning,
    /// `start` was called on a session that is already running.
    AlreadyRunning,
    /// A wait ran out of time.
    Timeout,
    /// A wait or run was cancelled by an `AbortSignal` or an explicit abort.
    Aborted,
    /// A tool call named a tool that is not registered.
    UnknownTool,
    /// A tool call named a handle id that does not exist.
    UnknownHandle,
    /// A tool call's input does not match the tool's schema.
    InvalidInput,
    /// A limit was reached: too many live handles, write queue full.
    Limit,
    /// A mouse event was sent to a program that has not enabled mouse
    /// reporting (it would read the report as typed characters).
    MouseOff,
    /// The sandbox asked for cannot be applied: the kernel lacks what it
    /// needs (Landlock, or its ABI for a rule), named in the message.
    SandboxUnavailable,
    /// The platform cannot do this (a Unix-only feature on Windows: the
    /// persistent shell, `runAs`, the terminal's modes).
    Unsupported,
    /// An unexpected operating-system failure (not one of the cases above).
    Internal,
}

impl ErrorCode {
    /// The code as JS sees it, e.g. `"ERR_SPAWN"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidArg => "ERR_INVALID_ARG",
            ErrorCode::Spawn => "ERR_SPAWN",
            ErrorCode::NotRunning => "ERR_NOT_RUNNING",
            ErrorCode::AlreadyRunning => "ERR_ALREADY_RUNNING",
            ErrorCode::Timeout => "ERR_TIMEOUT",
            ErrorCode::Aborted => "ERR_ABORTED",
            ErrorCode::UnknownTool => "ERR_UNKNOWN_TOOL",
            ErrorCode::UnknownHandle => "ERR_UNKNOWN_HANDLE",
            ErrorCode::InvalidInput => "ERR_INVALID_INPUT",
            ErrorCode::Limit => "ERR_LIMIT",
            ErrorCode::MouseOff => "ERR_MOUSE_OFF",
            ErrorCode::SandboxUnavailable => "ERR_SANDBOX_UNAVAILABLE",
            ErrorCode::Unsupported => "ERR_UNSUPPORTED",
            ErrorCode::Internal => "ERR_INTERNAL",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A failure with a stable code and a message that names the offending value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// What kind of failure this is.
    pub code: ErrorCode,
    /// A sentence for people: what was wrong and with which value.
    pub message: String,
    /// For [`ErrorCode::Spawn`]: the OS error number (positive, e.g. 2 for ENOENT).
    pub errno: Option<i32>,
    /// For [`ErrorCode::Spawn`]: the program or directory that failed.
    pub path: Option<String>,
}

impl Error {
    /// An error with a code and a message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Error {
            code,
            message: message.into(),
            errno: None,
            path: None,
        }
    }

    /// `ERR_INVALID_ARG`: a bad option.
    pub fn invalid_arg(message: impl Into<String>) -> Self {
        Error::new(ErrorCode::InvalidArg, message)
    }

    /// `ERR_NOT_RUNNING`.
    pub fn not_running(message: impl Into<String>) -> Self {
        Error::new(ErrorCode::NotRunning, message)
    }

    /// `ERR_SPAWN` for `path`, from the OS error that stopped it.
    ///
    /// The message reads like `spawn nosuch: ENOENT: no such file or directory`.
    pub fn spawn(what: &str, path: impl Into<String>, err: &std::io::Error) -> Self {
        let path = path.into();
        let errno = err.raw_os_error();
        let name = errno.map(errno_name).unwrap_or("EUNKNOWN");
        #[cfg(unix)]
        let desc = errno
            .map(|n| nix::errno::Errno::from_raw(n).desc().to_lowercase())
            .unwrap_or_else(|| err.to_string());
        // Windows: the system's message for the error code, as it is.
        #[cfg(windows)]
        let desc = err.to_string();
        Error {
            code: ErrorCode::Spawn,
            message: format!("{what} {path}: {name}: {desc}"),
            errno,
            path: Some(path),
        }
    }

    /// An unexpected OS failure while doing `what`.
    pub fn io(what: &str, err: &std::io::Error) -> Self {
        Error::new(ErrorCode::Internal, format!("{what}: {err}"))
    }
}

/// A number as JavaScript's `String(n)` writes it (`1e+300`, `Infinity`,
/// `-0.5`), for messages that quote what a JS caller passed.
pub fn js_number(n: f64) -> String {
    if n.is_nan() {
        return "NaN".to_owned();
    }
    if n.is_infinite() {
        return if n > 0.0 { "Infinity" } else { "-Infinity" }.to_owned();
    }
    let abs = n.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        let text = format!("{n:e}");
        return match text.split_once('e') {
            Some((mantissa, exp)) if !exp.starts_with('-') => format!("{mantissa}e+{exp}"),
            _ => text,
        };
    }
    format!("{n}")
}

/// The symbolic name of a Windows error code as libuv names it, e.g.
/// `ENOENT` for `ERROR_FILE_NOT_FOUND` (2) and `ERROR_PATH_NOT_FOUND` (3),
/// `EACCES` for `ERROR_ACCESS_DENIED` (5).
#[cfg(windows)]
pub fn errno_name(code: i32) -> &'static str {
    match code {
        2 | 3 => "ENOENT",
        5 => "EACCES",
        8 | 14 => "ENOMEM",
        193 => "ENOEXEC",
        206 => "ENAMETOOLONG",
        267 => "ENOTDIR",
        _ => "EUNKNOWN",
    }
}

/// The symbolic name of an errno value, e.g. `ENOENT` for 2.
#[cfg(unix)]
pub fn errno_name(errno: i32) -> &'static str {
    use nix::errno::Errno;
    match Errno::from_raw(errno) {
        Errno::ENOENT => "ENOENT",
        Errno::EACCES => "EACCES",
        Errno::ENOTDIR => "ENOTDIR",
        Errno::EISDIR => "EISDIR",
        Errno::ENOEXEC => "ENOEXEC",
        Errno::EPERM => "EPERM",
        Errno::ELOOP => "ELOOP",
        Errno::ENAMETOOLONG => "ENAMETOOLONG",
        Errno::E2BIG => "E2BIG",
        Errno::ENOMEM => "ENOMEM",
        Errno::EMFILE => "EMFILE",
        Errno::ENFILE => "ENFILE",
        Errno::EAGAIN => "EAGAIN",
        Errno::ETXTBSY => "ETXTBSY",
        Errno::ENXIO => "ENXIO",
        Errno::EIO => "EIO",
        _ => "EUNKNOWN",
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for Error {}

/// Result with the core [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_in_javascript() {
        for (n, js) in [
            (1e300, "1e+300"),
            (-1.5e-7, "-1.5e-7"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (0.1, "0.1"),
            (-3.0, "-3"),
            (f64::NAN, "NaN"),
            (f64::NEG_INFINITY, "-Infinity"),
        ] {
            assert_eq!(js_number(n), js);
        }
    }

    #[test]
    fn spawn_error_names_errno_and_path() {
        let err = Error::spawn("spawn", "/no/such", &std::io::Error::from_raw_os_error(2));
        assert_eq!(err.code.as_str(), "ERR_SPAWN");
        assert_eq!(err.errno, Some(2));
        assert_eq!(err.path.as_deref(), Some("/no/such"));
        assert_eq!(
            err.message,
            "spawn /no/such: ENOENT: no such file or directory"
        );
    }
}
