//! The layout of macOS's `sysctl(KERN_PROCARGS2)` answer, which holds a
//! process's arguments and initial environment: `argc` (a native-endian
//! `int`), the executable's path, NUL padding, `argc` NUL-terminated
//! arguments, then the environment's `NAME=value` strings up to an empty
//! string (the kernel's `apple[]` strings follow; they are not the
//! environment). Parsed here so the tests check it on every platform.

/// A process's arguments and environment, as the kernel copied them at exec.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct ProcArgs {
    /// `argv`.
    pub args: Vec<String>,
    /// The initial environment, `NAME=value` each (raw bytes).
    pub env: Vec<Vec<u8>>,
}

/// Parses a `KERN_PROCARGS2` buffer; `None` when it is shorter than its
/// `argc` says.
pub(super) fn parse(buf: &[u8]) -> Option<ProcArgs> {
    let argc = i32::from_ne_bytes(buf.get(..4)?.try_into().ok()?);
    let rest = &buf[4..];
    // The executable's path, then NUL padding up to the first argument.
    let path_end = rest.iter().position(|&b| b == 0)?;
    let mut at = path_end;
    while rest.get(at) == Some(&0) {
        at += 1;
    }
    let mut strings = rest.get(at..)?.split(|&b| b == 0);
    let mut out = ProcArgs::default();
    for _ in 0..argc.max(0) {
        let arg = strings.next()?;
        out.args.push(String::from_utf8_lossy(arg).into_owned());
    }
    // After the last argument: the environment, up to an empty string.
    for entry in strings {
        if entry.is_empty() {
            break;
        }
        out.env.push(entry.to_vec());
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buffer(argc: i32, body: &[u8]) -> Vec<u8> {
        let mut buf = argc.to_ne_bytes().to_vec();
        buf.extend_from_slice(body);
        buf
    }

    #[test]
    fn arguments_then_environment_up_to_the_apple_strings() {
        let buf = buffer(
            3,
            b"/bin/sh\0\0\0\0\0sh\0-c\0\0A=1\0PTYPILOT_MARK=x\0\0executable_path=/bin/sh\0\0\0",
        );
        let parsed = parse(&buf).unwrap();
        assert_eq!(parsed.args, ["sh", "-c", ""]);
        assert_eq!(parsed.env, [b"A=1".to_vec(), b"PTYPILOT_MARK=x".to_vec()]);
    }

    #[test]
    fn a_short_or_empty_buffer_is_refused_or_empty() {
        assert_eq!(parse(b"\x01"), None);
        // argc says 2 but one argument is there (and nothing after it).
        assert_eq!(parse(&buffer(2, b"/bin/sh\0\0sh")), None);
        let none = parse(&buffer(0, b"/bin/true\0\0\0")).unwrap();
        assert!(none.args.is_empty() && none.env.is_empty());
    }
}
