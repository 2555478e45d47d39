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
//!   last matching rule, so the read-only denials come after the allows).
//!   `file-write*` covers `file-write-mode`, `-owner`, `-times` and
//!   `-xattr`: metadata outside the roots is refused too;
//! - other terminals: `file-write*` and `file-ioctl` on `/dev/ttys*` (the
//!   program's own terminal is open already on 0, 1 and 2, and `/dev/tty`
//!   stays; a pty it opens itself, as tmux does, is refused on macOS);
//! - with the network off, every `network*` operation on an IP address
//!   (`(remote ip)`, `(local ip)`);
//! - `network-outbound` to every Unix socket but those beneath a writable
//!   root and those allowed by name (`allowUnixSockets`), and to each denied
//!   one whatever the rest says;
//! - signals and process inspection and control (`process-info*`, which
//!   covers `task_for_pid` and setting another's priority) of processes
//!   outside the sandbox;
//! - SysV and POSIX IPC (`ipc-sysv*`, `ipc-posix*`): Seatbelt cannot tell
//!   an object the program made from one made outside, so both are refused
//!   whole (named POSIX semaphores, as Python's multiprocessing locks use,
//!   fail on macOS).
//!
//! What macOS has no Seatbelt rule for: `TIOCSTI` (the kernel still allows
//! it on the controlling terminal), setuid programs (they run with the
//! sandbox inherited, but as their owner), the keychain's own access rules
//! and a size bound on the temporary folder. Those are documented as open on
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

/// `path` as the text of a regular expression in the profile language
/// (its metacharacters and `"` escaped).
fn regex_escape(path: &Path) -> String {
    let mut out = String::new();
    for c in path.to_string_lossy().chars() {
        if "\\.^$|?*+()[]{}\"".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
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
    p.push_str("    ))\n");
    p.push_str("(deny file-write* file-ioctl (regex #\"^/dev/ttys[0-9]+$\"))\n");
    for path in req.read_only {
        p.push_str(&format!("(deny file-write* (subpath {}))\n", literal(path)));
    }
    if let Some(port) = req.proxy_port {
        // Only the proxy's loopback port (Seatbelt applies the last
        // matching rule).
        p.push_str("(deny network* (remote ip))\n(deny network* (local ip))\n");
        let local = req.policy.hosts.as_ref().map_or(&[][..], |h| &h.local[..]);
        for port in std::iter::once(&port).chain(local) {
            p.push_str(&format!(
                "(allow network-outbound (remote ip \"localhost:{port}\"))\n"
            ));
        }
    } else if !req.policy.network {
        p.push_str("(deny network* (remote ip))\n(deny network* (local ip))\n");
    }
    p.push_str("(deny network-outbound (remote unix-socket))\n");
    for dir in req.writable {
        p.push_str(&format!(
            "(allow network-outbound (remote unix-socket (path-regex #\"^{}/\")))\n",
            regex_escape(dir)
        ));
    }
    for socket in req.allowed_sockets {
        p.push_str(&format!(
            "(allow network-outbound (remote unix-socket (path-literal {})))\n",
            literal(socket)
        ));
    }
    for socket in req.denied_sockets {
        p.push_str(&format!(
            "(deny network-outbound (remote unix-socket (path-literal {})))\n",
            literal(socket)
        ));
    }
    p.push_str("(deny signal (target others))\n(deny process-info* (target others))\n");
    p.push_str("(deny ipc-sysv*)\n(deny ipc-posix*)\n");
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

/// The profile with the program's own terminal `tty` writable (the last
/// rule, so it wins over the denial of every other terminal).
fn with_terminal(profile: &str, tty: Option<&Path>) -> String {
    match tty {
        Some(tty) => format!(
            "{profile}(allow file-write* file-ioctl (literal {}))\n",
            literal(tty)
        ),
        None => profile.to_owned(),
    }
}

/// Seatbelt makes no namespaces.
#[cfg_attr(not(target_os = "macos"), allow(dead_code))]
pub(super) fn makes_namespaces(_: &Prepared) -> bool {
    false
}

/// `sandbox-exec -p PROFILE -- program args...`.
#[cfg_attr(not(target_os = "macos"), allow(dead_code))]
pub(super) fn wrap_argv(
    p: &Prepared,
    program: &Path,
    argv: &[OsString],
    tty: Option<&Path>,
) -> Option<(PathBuf, Vec<OsString>)> {
    if !Path::new(SANDBOX_EXEC).exists() {
        return None;
    }
    let mut wrapped = vec![
        OsString::from("sandbox-exec"),
        OsString::from("-p"),
        OsString::from(with_terminal(&p.profile, tty)),
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
        let allowed = [PathBuf::from("/run/agent.sock")];
        let text = profile(&Request {
            policy: &policy,
            writable: &writable,
            read_only: &read_only,
            read_write: &[],
            temp_dir: &writable[1],
            cwd: &writable[0],
            denied_sockets: &sockets,
            allowed_sockets: &allowed,
            proxy_port: None,
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
        // Unix sockets: all refused, then those in the roots and the allowed
        // ones let through, then the denied ones refused again (last wins).
        let all = text
            .find("(deny network-outbound (remote unix-socket))")
            .unwrap();
        let root = text
            .find("(allow network-outbound (remote unix-socket (path-regex #\"^/ws/\")))")
            .unwrap();
        let named = text
            .find(
                "(allow network-outbound (remote unix-socket (path-literal \"/run/agent.sock\")))",
            )
            .unwrap();
        let docker = text.find("\"/var/run/docker.sock\"").unwrap();
        assert!(all < root && root < named && named < docker, "{text}");
        assert!(text.contains("#\"^/tmp/t\\\"q/\""), "{text}");
        // Metadata is part of file-write*; other terminals, IPC and other
        // processes are refused.
        assert!(text.contains("(deny file-write* file-ioctl (regex #\"^/dev/ttys[0-9]+$\"))"));
        assert!(
            !text.contains("(require-not (regex"),
            "no terminal is writable by default"
        );
        let own = with_terminal(&text, Some(Path::new("/dev/ttys004")));
        assert!(
            own.ends_with("(allow file-write* file-ioctl (literal \"/dev/ttys004\"))\n"),
            "the own terminal last: {own}"
        );
        for rule in [
            "(deny ipc-sysv*)",
            "(deny ipc-posix*)",
            "(deny process-info* (target others))",
            "(deny signal (target others))",
        ] {
            assert!(text.contains(rule), "{rule}: {text}");
        }
        policy.network = true;
        let on = profile(&Request {
            policy: &policy,
            writable: &writable,
            read_only: &[],
            read_write: &[],
            temp_dir: &writable[1],
            cwd: &writable[0],
            denied_sockets: &[],
            allowed_sockets: &[],
            proxy_port: None,
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

    #[test]
    fn with_an_allow_list_only_the_proxy_and_local_ports_are_reachable() {
        let mut policy = Policy::new(Mode::WorkspaceWrite);
        policy.hosts = Some(crate::core::net_proxy::NetPolicy {
            allow: vec![],
            deny: vec![],
            local: vec![5432],
            ask: false,
        });
        let writable = [PathBuf::from("/ws"), PathBuf::from("/tmp/t")];
        let text = profile(&Request {
            policy: &policy,
            writable: &writable,
            read_only: &[],
            read_write: &[],
            temp_dir: &writable[1],
            cwd: &writable[0],
            denied_sockets: &[],
            allowed_sockets: &[],
            proxy_port: Some(49152),
        });
        let deny = text.find("(deny network* (remote ip))").unwrap();
        let proxy = text
            .find("(allow network-outbound (remote ip \"localhost:49152\"))")
            .unwrap();
        assert!(
            proxy > deny,
            "the proxy's port is allowed after the denial: {text}"
        );
        assert!(text.contains("(allow network-outbound (remote ip \"localhost:5432\"))"));
        assert_eq!(
            text.matches("(allow network-outbound (remote ip").count(),
            2
        );
    }
}
