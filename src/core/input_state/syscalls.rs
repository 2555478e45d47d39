//! The system calls a reader of the terminal sleeps in, per ABI, and the
//! line of `/proc/PID/task/TID/syscall` that names one with its arguments.
//!
//! Each [`Abi`] has its own numbers (the kernel's `syscall_64.tbl`,
//! `unistd.h` for AArch64's generic table, `syscall_32.tbl`, Arm's
//! `calls.S`); the arguments that matter sit in the same places on all of
//! them. AArch64 has no `select`, `poll` or `epoll_wait`: its C library
//! makes `pselect6`, `ppoll` and `epoll_pwait`. The 32-bit ABIs also have
//! the `_time64` variants a C library with a 64-bit `time_t` calls.

use super::abi::Abi;

/// What a sleeping thread waits in, with the arguments to look at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wait {
    /// `read`/`readv` of descriptor `fd`.
    Read {
        /// The descriptor.
        fd: u64,
    },
    /// `select`/`pselect6`: `nfds` bits of the read set at address `read_set`.
    Select {
        /// The number of descriptors in the sets.
        nfds: u64,
        /// Address of the read set in the process (0: none).
        read_set: u64,
    },
    /// `poll`/`ppoll`: `nfds` entries of the `pollfd` array at `fds`.
    Poll {
        /// Address of the array in the process.
        fds: u64,
        /// Its entries.
        nfds: u64,
    },
    /// An epoll wait on descriptor `epfd`.
    Epoll {
        /// The epoll descriptor.
        epfd: u64,
    },
}

/// The syscall numbers of each kind of wait, for one ABI.
struct Table {
    read: &'static [i64],
    select: &'static [i64],
    poll: &'static [i64],
    epoll: &'static [i64],
}

/// x86-64: read 0, readv 19; select 23, pselect6 270; poll 7, ppoll 271;
/// epoll_wait 232, epoll_pwait 281, epoll_pwait2 441.
const X86_64: Table = Table {
    read: &[0, 19],
    select: &[23, 270],
    poll: &[7, 271],
    epoll: &[232, 281, 441],
};

/// AArch64: read 63, readv 65; pselect6 72; ppoll 73; epoll_pwait 22,
/// epoll_pwait2 441.
const AARCH64: Table = Table {
    read: &[63, 65],
    select: &[72],
    poll: &[73],
    epoll: &[22, 441],
};

/// i386: read 3, readv 145; _newselect 142, pselect6 308, pselect6_time64
/// 413; poll 168, ppoll 309, ppoll_time64 414; epoll_wait 256, epoll_pwait
/// 319, epoll_pwait2 441.
const I386: Table = Table {
    read: &[3, 145],
    select: &[142, 308, 413],
    poll: &[168, 309, 414],
    epoll: &[256, 319, 441],
};

/// Arm EABI: read 3, readv 145; _newselect 142, pselect6 335,
/// pselect6_time64 413; poll 168, ppoll 336, ppoll_time64 414; epoll_wait
/// 252, epoll_pwait 346, epoll_pwait2 441.
const ARM: Table = Table {
    read: &[3, 145],
    select: &[142, 335, 413],
    poll: &[168, 336, 414],
    epoll: &[252, 346, 441],
};

fn table(abi: Abi) -> &'static Table {
    match abi {
        Abi::X86_64 => &X86_64,
        Abi::Aarch64 => &AARCH64,
        Abi::I386 => &I386,
        Abi::Arm => &ARM,
    }
}

/// The wait that call `nr` with arguments `args` is, on `abi`; `None` for
/// any other call.
pub fn decode(abi: Abi, nr: i64, args: [u64; 6]) -> Option<Wait> {
    let t = table(abi);
    if t.read.contains(&nr) {
        Some(Wait::Read { fd: args[0] })
    } else if t.select.contains(&nr) {
        Some(Wait::Select {
            nfds: args[0],
            read_set: args[1],
        })
    } else if t.poll.contains(&nr) {
        Some(Wait::Poll {
            fds: args[0],
            nfds: args[1],
        })
    } else if t.epoll.contains(&nr) {
        Some(Wait::Epoll { epfd: args[0] })
    } else {
        None
    }
}

/// The call and arguments of a `/proc/PID/task/TID/syscall` line
/// (`nr arg1 .. arg6 sp pc`, the arguments in hex); `None` when the thread
/// is in no call (`running`, or `-1 sp pc`).
pub fn parse_line(line: &str) -> Option<(i64, [u64; 6])> {
    let mut words = line.split_whitespace();
    let nr: i64 = words.next()?.parse().ok()?;
    if nr < 0 {
        return None;
    }
    let mut args = [0u64; 6];
    for arg in &mut args {
        let word = words.next()?;
        *arg = u64::from_str_radix(word.strip_prefix("0x")?, 16).ok()?;
    }
    Some((nr, args))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decoded(abi: Abi, line: &str) -> Option<Wait> {
        let (nr, args) = parse_line(line).expect("a blocked line");
        decode(abi, nr, args)
    }

    /// Lines read from `/proc/PID/syscall` on x86-64 (Debian 12, Linux 6.x):
    /// `cat` reading a pipe, Python's `select`, `poll`, `epoll` and
    /// `os.readv` on stdin, and an idle Node.
    const X86_64_LINES: [(&str, Wait); 6] = [
        (
            "0 0x0 0x7fd45e0e7000 0x20000 0x7fd45e178b60 0xffffffff 0x0 0x7ffe4440cb78 0x7fd45e2612ad",
            Wait::Read { fd: 0 },
        ),
        (
            "19 0x0 0x7f6ac314c150 0x1 0x7f6ac3227dd0 0x0 0x0 0x7ffc28f71b08 0x7f6ac331bdc0",
            Wait::Read { fd: 0 },
        ),
        (
            "270 0x1 0x7ffdaa458e60 0x0 0x0 0x0 0x0 0x7ffdaa458d80 0x7f93e811c954",
            Wait::Select {
                nfds: 1,
                read_set: 0x7ffdaa458e60,
            },
        ),
        (
            "7 0x7f20add4c150 0x1 0xffffffff 0x1 0x0 0x0 0x7ffcc0776908 0x7f20adf1a230",
            Wait::Poll {
                fds: 0x7f20add4c150,
                nfds: 1,
            },
        ),
        (
            "232 0x3 0x55f5ad0cd550 0x3ff 0xffffffff 0x0 0x0 0x7ffcf6d83448 0x7efe0b926ef3",
            Wait::Epoll { epfd: 3 },
        ),
        (
            "281 0xe 0x7ffd78ababd0 0x400 0xf4240 0x0 0x8 0x7ffd78ab9e70 0x7f446dd06cae",
            Wait::Epoll { epfd: 14 },
        ),
    ];

    /// The same waits as an AArch64 kernel writes them: the format of the
    /// lines above with the calls' AArch64 numbers (no arm64 program runs on
    /// the machine these tests were written on, so these are composed, not
    /// recorded).
    const AARCH64_LINES: [(&str, Wait); 6] = [
        (
            "63 0x0 0xffff8c2e7000 0x20000 0xffff8c378b60 0xffffffff 0x0 0xffffe4440cb0 0xffff8c4612ad",
            Wait::Read { fd: 0 },
        ),
        (
            "65 0x0 0xffff8c34c150 0x1 0xffff8c427dd0 0x0 0x0 0xffffe4440cb0 0xffff8c51bdc0",
            Wait::Read { fd: 0 },
        ),
        (
            "72 0x1 0xffffe4458e60 0x0 0x0 0x0 0x0 0xffffe4458d80 0xffff8c11c954",
            Wait::Select {
                nfds: 1,
                read_set: 0xffffe4458e60,
            },
        ),
        (
            "73 0xffff8c34c150 0x1 0x0 0x0 0x8 0x0 0xffffe4440cb0 0xffff8c51a230",
            Wait::Poll {
                fds: 0xffff8c34c150,
                nfds: 1,
            },
        ),
        (
            "22 0x3 0xaaaaad0cd550 0x3ff 0xffffffffffffffff 0x0 0x8 0xffffe4440cb0 0xffff8c526ef3",
            Wait::Epoll { epfd: 3 },
        ),
        (
            "441 0xe 0xffffe4ababd0 0x400 0xffffe4ab9e70 0x0 0x8 0xffffe4ab9e70 0xffff8c506cae",
            Wait::Epoll { epfd: 14 },
        ),
    ];

    #[test]
    fn x86_64_lines_decode_with_the_x86_64_table() {
        for (line, wait) in X86_64_LINES {
            assert_eq!(decoded(Abi::X86_64, line), Some(wait), "{line}");
        }
    }

    #[test]
    fn aarch64_lines_decode_with_the_aarch64_table() {
        for (line, wait) in AARCH64_LINES {
            assert_eq!(decoded(Abi::Aarch64, line), Some(wait), "{line}");
        }
    }

    #[test]
    fn a_line_read_with_the_other_table_is_not_that_wait() {
        // Only epoll_pwait2 (441) has one number on both.
        for (line, wait) in X86_64_LINES {
            assert_ne!(decoded(Abi::Aarch64, line), Some(wait), "{line}");
        }
        for (line, wait) in AARCH64_LINES.iter().filter(|(l, _)| !l.starts_with("441 ")) {
            assert_ne!(decoded(Abi::X86_64, line), Some(*wait), "{line}");
        }
        // x86-64's read (0) is AArch64's io_setup; AArch64's read (63) is
        // x86-64's uname.
        assert_eq!(decoded(Abi::Aarch64, X86_64_LINES[0].0), None);
        assert_eq!(decoded(Abi::X86_64, AARCH64_LINES[0].0), None);
    }

    #[test]
    fn aarch64_has_no_poll_select_or_epoll_wait() {
        let args = [3, 0x1000, 1, 0, 0, 0];
        // x86-64's poll (7), select (23) and epoll_wait (232) mean other
        // calls there (or nothing).
        for nr in [7, 23, 232] {
            assert_eq!(decode(Abi::Aarch64, nr, args), None, "{nr}");
        }
    }

    #[test]
    fn thirty_two_bit_programs_have_their_own_numbers() {
        let args = [0, 0x8000, 1, 0, 0, 0];
        assert_eq!(decode(Abi::I386, 3, args), Some(Wait::Read { fd: 0 }));
        assert_eq!(decode(Abi::Arm, 3, args), Some(Wait::Read { fd: 0 }));
        assert_eq!(
            decode(Abi::I386, 414, args),
            Some(Wait::Poll {
                fds: 0,
                nfds: 0x8000
            })
        );
        assert!(matches!(
            decode(Abi::Arm, 346, args),
            Some(Wait::Epoll { .. })
        ));
        assert!(matches!(
            decode(Abi::I386, 319, args),
            Some(Wait::Epoll { .. })
        ));
        // 3 is x86-64's close and AArch64's io_cancel.
        assert_eq!(decode(Abi::X86_64, 3, args), None);
        assert_eq!(decode(Abi::Aarch64, 3, args), None);
    }

    #[test]
    fn lines_outside_a_call_are_none() {
        assert_eq!(parse_line("running"), None);
        assert_eq!(parse_line("-1 0x7ffe4440cb78 0x7fd45e2612ad"), None);
        assert_eq!(parse_line("0 0x0 0x1"), None);
        assert_eq!(parse_line(""), None);
    }
}
