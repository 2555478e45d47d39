//! The sandbox on macOS: a Seatbelt profile, applied by running the program
//! through `/usr/bin/sandbox-exec -p PROFILE -- program args` (the
//! sandbox is inherited by everything the program starts, and this process
//! stays unconfined). Built and type-checked for macOS, not run: no macOS
//! program runs on the machine this project is built on.
//!
//! The profile allows by default and denies what the Linux sandbox refuses:
//!
//! - `file-write*` outside the writable roots, the temporary folder and the
//!   terminal devices, and inside the read-only paths (Seatbelt applies the
//!   last matching rule, so the read-only denials come after the allows);
//! - with the network off, every `network*` operation on an IP address
//!   (`(remote ip)`, `(local ip)`); Unix sockets stay;
//! - `network-outbound` to each denied Unix socket;
//! - signals and process inspection (`process-info*`, which covers
//!   `task_for_pid`) of processes outside the sandbox.
//!
//! What macOS has no Seatbelt rule for: `TIOCSTI` (the kernel still allows
//! it on the controlling terminal) and setuid programs (they run with the
//! sandbox inherited, but as their owner). Those are documented as open on
//! macOS.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::Request;
use crate::core::error::Result;

/// Where `sandbox-exec` lives on every macOS release that has it.
const SANDBOX_EXEC: &str = "/usr/bin/sandbox-exec";

/// The profile, ready to pass to `sandbox-exec`.
#[cfg_attr(not(target_os = "macos"), allow(dead_code))]
pub(super) struct Prepared {
    profile: String,
}

/// A string literal of the profile language (TinyScheme's rules: `\` and
/// `"` escaped).
fn literal(path: &Path) -> String {
    let text = path.to_string_lossy();
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        if c == '\\' || c == '"' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// The Seatbelt profile for `req`.
pub(super) fn profile(req: &Request<'_>) -> String {
    let mut p = String::from("(version 1)\n(allow default)\n");
    p.push_str("(deny file-write*\n  (require-all\n");
    for dir in req.writable {
        p.push_str(&format!("    (require-not (subpath {}))\n", literal(dir)));
    }
    for dev in [
        "/dev/null",
        "/dev/zero",
        "/dev/tty",
        "/dev/ptmx",
        "/dev/dtracehelper",
    ] {
        p.push_str(&format!(
            "    (require-not (literal {}))\n",
            literal(Path::new(dev))
        ));
    }
    p.push_str("    (require-not (regex #\"^/dev/ttys[0-9]+$\"))))\n");
    for path in req.read_only {
        p.push_str(&format!("(deny file-write* (subpath {}))\n", literal(path)));
    }
    if !req.policy.network {
        p.push_str("(deny network* (remote ip))\n(deny network* (local ip))\n");
    }
    for socket in req.denied_sockets {
        p.push_str(&format!(
            "(deny network-outbound (remote unix-socket (path-literal {})))\n",
            literal(socket)
        ));
    }
    p.push_str("(deny signal (target others))\n(deny process-info* (target others))\n");
    p
}

#[cfg_attr(not(target_os = "macos"), allow(dead_code))]
pub(super) fn prepare(req: &Request<'_>, missing: &mut Vec<String>) -> Result<Prepared> {
    if !Path::new(SANDBOX_EXEC).exists() {
        missing.push(format!("{SANDBOX_EXEC} is missing: no Seatbelt sandbox"));
    }
    Ok(Prepared {
        profile: profile(req),
    })
}

/// `sandbox-exec` applies the profile: nothing runs in the child.
#[cfg_attr(not(target_os = "macos"), allow(dead_code))]
pub(super) fn needs_own_memory(_: &Prepared) -> bool {
    false
}

/// `sandbox-exec -p PROFILE -- program args...`.
#[cfg_attr(not(target_os = "macos"), allow(dead_code))]
pub(super) fn wrap_argv(
    p: &Prepared,
    program: &Path,
    argv: &[OsString],
) -> Option<(PathBuf, Vec<OsString>)> {
    if !Path::new(SANDBOX_EXEC).exists() {
        return None;
    }
    let mut wrapped = vec![
        OsString::from("sandbox-exec"),
        OsString::from("-p"),
        OsString::from(&p.profile),
        OsString::from("--"),
        program.as_os_str().to_owned(),
    ];
    wrapped.extend(argv.iter().skip(1).cloned());
    Some((PathBuf::from(SANDBOX_EXEC), wrapped))
}

/// Nothing to do in the child: `sandbox-exec` applies the profile.
///
/// # Safety
/// None needed; kept `unsafe` to match the Linux implementation.
#[cfg_attr(not(target_os = "macos"), allow(dead_code))]
pub(super) unsafe fn apply_in_child(_: &Prepared) -> std::result::Result<(), i32> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::sandbox::{Mode, Policy};

    #[test]
    fn profile_denies_writes_outside_and_read_only_paths_after() {
        let mut policy = Policy::new(Mode::WorkspaceWrite);
        policy.network = false;
        let writable = [PathBuf::from("/ws"), PathBuf::from("/tmp/t\"q")];
        let read_only = [PathBuf::from("/ws/.git")];
        let sockets = [PathBuf::from("/var/run/docker.sock")];
        let text = profile(&Request {
            policy: &policy,
            writable: &writable,
            read_only: &read_only,
            denied_sockets: &sockets,
        });
        assert!(text.starts_with("(version 1)\n(allow default)\n"));
        assert!(text.contains("(require-not (subpath \"/ws\"))"));
        assert!(
            text.contains("(require-not (subpath \"/tmp/t\\\"q\"))"),
            "{text}"
        );
        let allow_at = text.find("(deny file-write*\n").unwrap();
        let git_at = text
            .find("(deny file-write* (subpath \"/ws/.git\"))")
            .unwrap();
        assert!(git_at > allow_at, "read-only denial comes last");
        assert!(text.contains("(deny network* (remote ip))"));
        assert!(text.contains("(path-literal \"/var/run/docker.sock\")"));
        policy.network = true;
        let on = profile(&Request {
            policy: &policy,
            writable: &writable,
            read_only: &[],
            denied_sockets: &[],
        });
        assert!(!on.contains("network*"));
        // Balanced parentheses: the profile parses.
        let depth = on.chars().try_fold(0i32, |d, c| match c {
            '(' => Some(d + 1),
            ')' => (d > 0).then_some(d - 1),
            _ => Some(d),
        });
        assert_eq!(depth, Some(0));
    }
}
