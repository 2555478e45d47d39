//! A Windows command line from an argument list: Windows passes a program
//! one string, which the C runtime splits back into `argv` by the rules of
//! `CommandLineToArgvW`. Plain text (no platform calls), so it is tested on
//! every platform; used by `windows.rs`.

const SPACE: u16 = b' ' as u16;
const TAB: u16 = b'\t' as u16;
const QUOTE: u16 = b'"' as u16;
const BACKSLASH: u16 = b'\\' as u16;

/// Joins `args` (UTF-16) with spaces, each quoted so that
/// `CommandLineToArgvW` reads it back: an argument with a space, tab or
/// quote, or an empty one, goes in quotes, a quote in it becomes `\"`, and
/// backslashes are doubled where a quote follows them.
///
/// `cmd.exe /c` reads its line by its own rules: a quoted argument there
/// loses its outer quotes (with `/s`), but `\"` inside stays as it is.
pub fn join(args: &[Vec<u16>]) -> Vec<u16> {
    let mut line: Vec<u16> = Vec::new();
    for (i, arg) in args.iter().enumerate() {
        if i > 0 {
            line.push(SPACE);
        }
        let plain = !arg.is_empty() && !arg.iter().any(|&c| c == SPACE || c == TAB || c == QUOTE);
        if plain {
            line.extend(arg);
            continue;
        }
        line.push(QUOTE);
        let mut backslashes = 0usize;
        for &c in arg {
            if c == BACKSLASH {
                backslashes += 1;
                continue;
            }
            let count = if c == QUOTE {
                backslashes * 2 + 1
            } else {
                backslashes
            };
            line.extend(std::iter::repeat_n(BACKSLASH, count));
            backslashes = 0;
            line.push(c);
        }
        line.extend(std::iter::repeat_n(BACKSLASH, backslashes * 2));
        line.push(QUOTE);
    }
    line
}

#[cfg(test)]
mod tests {
    use super::join;

    fn line(args: &[&str]) -> String {
        let args: Vec<Vec<u16>> = args.iter().map(|a| a.encode_utf16().collect()).collect();
        String::from_utf16(&join(&args)).unwrap()
    }

    #[test]
    fn quotes_only_what_needs_it() {
        assert_eq!(
            line(&["cmd.exe", "/d", "/c", "echo hi & exit 3"]),
            r#"cmd.exe /d /c "echo hi & exit 3""#
        );
        assert_eq!(line(&["a", ""]), r#"a """#);
        assert_eq!(line(&["a", r#"say "x""#]), r#"a "say \"x\"""#);
        assert_eq!(
            line(&["a", r"C:\dir with space\"]),
            r#"a "C:\dir with space\\""#
        );
        assert_eq!(line(&["a", r"C:\plain\"]), r"a C:\plain\");
        assert_eq!(line(&["a", r#"x\"y z"#]), r#"a "x\\\"y z""#);
    }
}
