//! The system-call ABI of an observed process, from the first bytes of its
//! executable's ELF header (`/proc/PID/exe` on Linux): its class (32 or 64
//! bits) and machine. It decides which syscall table decodes the process's
//! `/proc/PID/task/TID/syscall` line: a 32-bit program on a 64-bit kernel
//! makes the 32-bit calls, whatever this addon was built for. (A program
//! run by `qemu-user` through `binfmt_misc` shows qemu as its executable,
//! and qemu makes the host's calls: the header is the right answer there
//! too.)

/// Bytes of the ELF header [`Abi::from_elf_header`] reads.
pub const ELF_HEADER_LEN: usize = 20;

/// A Linux system-call ABI whose syscall table is known here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Abi {
    /// x86-64 (`ELFCLASS64`, `EM_X86_64`).
    X86_64,
    /// AArch64 (`ELFCLASS64`, `EM_AARCH64`).
    Aarch64,
    /// 32-bit x86 (`ELFCLASS32`, `EM_386`), on an x86-64 or i386 kernel.
    I386,
    /// 32-bit Arm EABI (`ELFCLASS32`, `EM_ARM`), on an AArch64 or Arm kernel.
    Arm,
}

const EM_386: u16 = 3;
const EM_ARM: u16 = 40;
const EM_X86_64: u16 = 62;
const EM_AARCH64: u16 = 183;

impl Abi {
    /// The ABI an executable with this ELF header runs with: `None` for a
    /// file that is no little-endian ELF, or a machine without a table here
    /// (x32, a big-endian or other architecture).
    pub fn from_elf_header(header: &[u8]) -> Option<Abi> {
        let header = header.get(..ELF_HEADER_LEN)?;
        if header[..4] != *b"\x7fELF" || header[5] != 1 {
            return None;
        }
        let machine = u16::from_le_bytes([header[18], header[19]]);
        match (header[4], machine) {
            (2, EM_X86_64) => Some(Abi::X86_64),
            (2, EM_AARCH64) => Some(Abi::Aarch64),
            (1, EM_386) => Some(Abi::I386),
            (1, EM_ARM) => Some(Abi::Arm),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first 20 bytes of Debian 12's `/bin/true` (amd64).
    const X86_64_TRUE: [u8; 20] = *b"\x7fELF\x02\x01\x01\x00\0\0\0\0\0\0\0\0\x03\x00\x3e\x00";
    /// The first 20 bytes of Debian 12's `libc.so.6` for arm64
    /// (`/usr/aarch64-linux-gnu/lib/libc.so.6`).
    const AARCH64_LIBC: [u8; 20] = *b"\x7fELF\x02\x01\x01\x03\0\0\0\0\0\0\0\0\x03\x00\xb7\x00";

    fn with(class: u8, machine: u16) -> [u8; 20] {
        let mut h = X86_64_TRUE;
        h[4] = class;
        h[18..20].copy_from_slice(&machine.to_le_bytes());
        h
    }

    #[test]
    fn class_and_machine_pick_the_abi() {
        assert_eq!(Abi::from_elf_header(&X86_64_TRUE), Some(Abi::X86_64));
        assert_eq!(Abi::from_elf_header(&AARCH64_LIBC), Some(Abi::Aarch64));
        assert_eq!(Abi::from_elf_header(&with(1, EM_386)), Some(Abi::I386));
        assert_eq!(Abi::from_elf_header(&with(1, EM_ARM)), Some(Abi::Arm));
    }

    #[test]
    fn other_files_and_machines_have_no_table() {
        // x32: 32-bit class, x86-64 machine.
        assert_eq!(Abi::from_elf_header(&with(1, EM_X86_64)), None);
        // RISC-V 64.
        assert_eq!(Abi::from_elf_header(&with(2, 243)), None);
        let mut big_endian = AARCH64_LIBC;
        big_endian[5] = 2;
        assert_eq!(Abi::from_elf_header(&big_endian), None);
        assert_eq!(Abi::from_elf_header(b"#!/bin/sh\nexec true\n"), None);
        assert_eq!(Abi::from_elf_header(&X86_64_TRUE[..19]), None);
    }
}
