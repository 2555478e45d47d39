//! `applyBashFixups`: removes the output caps an agent habitually appends
//! to a command, for a caller that caps output itself.
//!
//! Agents write `make 2>&1 | tail -50` and `grep -r foo . | head -20` out of
//! habit. A runner that merges stderr into the output and keeps the whole
//! output (showing its head and tail, or spilling it to a file) loses
//! information to these caps: the error that scrolled past line 50, the
//! total count. [`apply_bash_fixups`] strips, at the end of the command
//! only:
//!
//! - a final pipeline stage that is a plain line or byte cap: `head` or
//!   `tail` with no file, no redirection and at most a count (`-n 20`,
//!   `-20`, `-n20`, `--lines=20`, `-c 100`, `--bytes=100`, `-q`); repeated,
//!   so `| head -20 | tail -5` goes too;
//! - a final `2>&1` when the command redirects nothing else of its output
//!   (stderr is already merged).
//!
//! It reads the command as bash does, without running anything: quotes
//! (`'…'`, `"…"`, `$'…'`), backslashes, `$(…)`, backticks, `${…}`,
//! subshells, `{ …; }` groups, `if`/`for`/`while`/`until` blocks and process
//! substitution hide their insides, so `echo "a | head -5"` and
//! `echo $(ls | head -5)` are left alone. It leaves the command untouched
//! when in doubt: a here-document, a comment, a `case` block, unbalanced
//! quotes or brackets, a quoted or computed `head` or count
//! (`head -n "$N"`), `tail -f`, `tail -n +5`, `head -n -5`, a cap followed by
//! anything (`| head -5; echo`, `| head -5 &`), and a cap on a producer that
//! would not end without it (`yes`, `tail -f`, `watch`, `top`, `ping`
//! without `-c`, `/dev/zero`, `/dev/urandom`, `while`/`until` loops).
//!
//! Removing a cap lets the producer run to its end: `find / | head -1`
//! stops at the first file, `find /` walks the disk. Use it where the
//! caller bounds time (a timeout) as well as output.

/// The result of [`apply_bash_fixups`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BashFixup {
    /// The command with the caps removed (the input itself when nothing was).
    pub command: String,
    /// Whether anything was removed.
    pub stripped: bool,
}

/// A control operator between commands at the top level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Pipe,
    PipeAll,
    And,
    Or,
    Semi,
    Background,
    Newline,
}

/// A token at the top level of the command (nested text is inside words).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    /// A word; `literal` when it has no quotes, escapes or expansions.
    Word {
        start: usize,
        end: usize,
        literal: bool,
    },
    /// A control operator.
    Op { start: usize, op: Op },
    /// A redirection: the operator with its file descriptor and, for a
    /// duplication (`2>&1`), its target; a file target is the next word.
    Redirect {
        start: usize,
        end: usize,
        fd: Option<u32>,
        op: &'static str,
        dup: Option<String>,
    },
}

/// Where a nested scan stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    End,
    /// `)` of a subshell, `$(…)` or `<(…)`.
    Paren,
    /// A reserved word at command position: `}`, `fi`, `done`.
    Word(&'static str),
}

/// Why the command is left alone.
struct Unsure;

struct Lexer<'a> {
    s: &'a [u8],
    i: usize,
}

impl<'a> Lexer<'a> {
    fn peek(&self, ahead: usize) -> Option<u8> {
        self.s.get(self.i + ahead).copied()
    }

    /// Tokens up to `stop` (`End`: the end of the text). Returns with `i`
    /// after the stop.
    fn tokens(&mut self, stop: Stop) -> Result<Vec<Tok>, Unsure> {
        let mut toks = Vec::new();
        let mut command_position = true;
        loop {
            let Some(c) = self.peek(0) else {
                return if stop == Stop::End {
                    Ok(toks)
                } else {
                    Err(Unsure)
                };
            };
            let start = self.i;
            match c {
                b' ' | b'\t' => self.i += 1,
                b'\\' if self.peek(1) == Some(b'\n') => self.i += 2,
                b'\n' | b';' | b'&' | b'|' => {
                    let (op, len) = match (c, self.peek(1)) {
                        (b'\n', _) => (Op::Newline, 1),
                        // `;;` belongs to `case`, which is left alone.
                        (b';', Some(b';')) => return Err(Unsure),
                        (b';', _) => (Op::Semi, 1),
                        (b'&', Some(b'&')) => (Op::And, 2),
                        (b'&', Some(b'>')) => {
                            let len = if self.peek(2) == Some(b'>') { 3 } else { 2 };
                            self.i += len;
                            toks.push(Tok::Redirect {
                                start,
                                end: self.i,
                                fd: None,
                                op: "&>",
                                dup: None,
                            });
                            continue;
                        }
                        (b'&', _) => (Op::Background, 1),
                        (b'|', Some(b'|')) => (Op::Or, 2),
                        (b'|', Some(b'&')) => (Op::PipeAll, 2),
                        _ => (Op::Pipe, 1),
                    };
                    self.i += len;
                    toks.push(Tok::Op { start, op });
                    command_position = true;
                }
                b'<' | b'>' if self.peek(1) == Some(b'(') => {
                    // Process substitution: a word.
                    self.i += 2;
                    self.tokens(Stop::Paren)?;
                    toks.push(Tok::Word {
                        start,
                        end: self.i,
                        literal: false,
                    });
                    command_position = false;
                }
                b'<' | b'>' => {
                    // A file descriptor number written right before it.
                    let (fd, start) = match toks.last() {
                        Some(Tok::Word {
                            start: ws,
                            end,
                            literal: true,
                        }) if *end == self.i
                            && self.s[*ws..*end].iter().all(u8::is_ascii_digit) =>
                        {
                            let fd = std::str::from_utf8(&self.s[*ws..*end])
                                .ok()
                                .and_then(|d| d.parse().ok());
                            let ws = *ws;
                            toks.pop();
                            (fd, ws)
                        }
                        _ => (None, start),
                    };
                    let op = self.redirect_operator()?;
                    let mut dup = None;
                    if op.ends_with('&') {
                        let from = self.i;
                        while self
                            .peek(0)
                            .is_some_and(|b| b.is_ascii_digit() || b == b'-')
                        {
                            self.i += 1;
                        }
                        if self.i > from {
                            dup = Some(String::from_utf8_lossy(&self.s[from..self.i]).into_owned());
                        }
                    }
                    toks.push(Tok::Redirect {
                        start,
                        end: self.i,
                        fd,
                        op,
                        dup,
                    });
                }
                b'(' => {
                    self.i += 1;
                    self.tokens(Stop::Paren)?;
                    toks.push(Tok::Word {
                        start,
                        end: self.i,
                        literal: false,
                    });
                    command_position = false;
                }
                b')' => {
                    if stop == Stop::Paren {
                        self.i += 1;
                        return Ok(toks);
                    }
                    return Err(Unsure);
                }
                b'#' => return Err(Unsure),
                _ => {
                    let literal = self.word()?;
                    let word = &self.s[start..self.i];
                    if command_position && literal {
                        if let Stop::Word(end) = stop {
                            if word == end.as_bytes() {
                                return Ok(toks);
                            }
                        }
                        let closing = match word {
                            b"{" => Some("}"),
                            b"if" => Some("fi"),
                            b"for" | b"while" | b"until" | b"select" => Some("done"),
                            b"case" => return Err(Unsure),
                            _ => None,
                        };
                        if let Some(closing) = closing {
                            self.tokens(Stop::Word(closing))?;
                            toks.push(Tok::Word {
                                start,
                                end: self.i,
                                literal: false,
                            });
                            command_position = false;
                            continue;
                        }
                    }
                    toks.push(Tok::Word {
                        start,
                        end: self.i,
                        literal,
                    });
                    // After these reserved words a command follows.
                    command_position = command_position
                        && literal
                        && matches!(word, b"then" | b"do" | b"else" | b"elif" | b"!" | b"time");
                }
            }
        }
    }

    /// The redirection operator at `i` (after any fd digits).
    fn redirect_operator(&mut self) -> Result<&'static str, Unsure> {
        let rest = &self.s[self.i..];
        let op = if rest.starts_with(b"<<<") {
            "<<<"
        } else if rest.starts_with(b"<<") {
            // A here-document: its body follows on the next lines.
            return Err(Unsure);
        } else {
            [">>", ">|", ">&", "<&", "<>", ">", "<"]
                .into_iter()
                .find(|op| rest.starts_with(op.as_bytes()))
                .ok_or(Unsure)?
        };
        self.i += op.len();
        Ok(op)
    }

    /// Scans one word; whether it is literal (no quotes, escapes or
    /// expansions).
    fn word(&mut self) -> Result<bool, Unsure> {
        let mut literal = true;
        while let Some(c) = self.peek(0) {
            match c {
                b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'<' | b'>' | b')' => break,
                b'(' => {
                    // `name=(…)` (an array) or `@(…)` (an extended glob).
                    self.i += 1;
                    self.tokens(Stop::Paren)?;
                    literal = false;
                }
                b'\\' => {
                    if self.peek(1).is_none() {
                        return Err(Unsure);
                    }
                    self.i += 2;
                    literal = false;
                }
                b'\'' => {
                    self.i += 1;
                    self.single_quoted()?;
                    literal = false;
                }
                b'"' => {
                    self.i += 1;
                    self.double_quoted()?;
                    literal = false;
                }
                b'`' => {
                    self.i += 1;
                    self.backquoted()?;
                    literal = false;
                }
                b'$' => {
                    self.dollar()?;
                    literal = false;
                }
                _ => self.i += 1,
            }
        }
        Ok(literal)
    }

    /// After `$`: `$'…'`, `$"…"`, `$(…)`, `$((…))`, `${…}` or a plain `$x`.
    fn dollar(&mut self) -> Result<(), Unsure> {
        self.i += 1;
        match self.peek(0) {
            Some(b'\'') => {
                // ANSI-C quoting: backslash escapes a quote.
                self.i += 1;
                loop {
                    match self.peek(0) {
                        None => return Err(Unsure),
                        Some(b'\\') => self.i += 2,
                        Some(b'\'') => {
                            self.i += 1;
                            return Ok(());
                        }
                        Some(_) => self.i += 1,
                    }
                }
            }
            Some(b'"') => {
                self.i += 1;
                self.double_quoted()
            }
            Some(b'(') => {
                self.i += 1;
                self.tokens(Stop::Paren).map(drop)
            }
            Some(b'{') => {
                self.i += 1;
                self.braced()
            }
            _ => Ok(()),
        }
    }

    fn single_quoted(&mut self) -> Result<(), Unsure> {
        let end = self.s[self.i..]
            .iter()
            .position(|b| *b == b'\'')
            .ok_or(Unsure)?;
        self.i += end + 1;
        Ok(())
    }

    fn double_quoted(&mut self) -> Result<(), Unsure> {
        loop {
            match self.peek(0) {
                None => return Err(Unsure),
                Some(b'"') => {
                    self.i += 1;
                    return Ok(());
                }
                Some(b'\\') => self.i += 2,
                Some(b'`') => {
                    self.i += 1;
                    self.backquoted()?;
                }
                Some(b'$') => self.dollar()?,
                Some(_) => self.i += 1,
            }
        }
    }

    fn backquoted(&mut self) -> Result<(), Unsure> {
        loop {
            match self.peek(0) {
                None => return Err(Unsure),
                Some(b'\\') => self.i += 2,
                Some(b'`') => {
                    self.i += 1;
                    return Ok(());
                }
                Some(_) => self.i += 1,
            }
        }
    }

    /// `${…}`, with quotes and nested expansions inside.
    fn braced(&mut self) -> Result<(), Unsure> {
        loop {
            match self.peek(0) {
                None => return Err(Unsure),
                Some(b'}') => {
                    self.i += 1;
                    return Ok(());
                }
                Some(b'\\') => self.i += 2,
                Some(b'\'') => {
                    self.i += 1;
                    self.single_quoted()?;
                }
                Some(b'"') => {
                    self.i += 1;
                    self.double_quoted()?;
                }
                Some(b'`') => {
                    self.i += 1;
                    self.backquoted()?;
                }
                Some(b'$') => self.dollar()?,
                Some(_) => self.i += 1,
            }
        }
    }
}

/// Strips trailing `| head …` / `| tail …` caps and a redundant trailing
/// `2>&1` (see the module docs); executes nothing.
///
/// ```
/// use ptypilot::core::shell::apply_bash_fixups;
/// let f = apply_bash_fixups("make 2>&1 | tail -50");
/// assert_eq!((f.command.as_str(), f.stripped), ("make", true));
/// let f = apply_bash_fixups("echo 'a | head -5'");
/// assert_eq!((f.command.as_str(), f.stripped), ("echo 'a | head -5'", false));
/// ```
pub fn apply_bash_fixups(command: &str) -> BashFixup {
    let unchanged = || BashFixup {
        command: command.to_string(),
        stripped: false,
    };
    let mut lexer = Lexer {
        s: command.as_bytes(),
        i: 0,
    };
    let Ok(mut toks) = lexer.tokens(Stop::End) else {
        return unchanged();
    };
    let s = command.as_bytes();
    let text = |t: &Tok| match t {
        Tok::Word { start, end, .. } => &s[*start..*end],
        _ => &[][..],
    };
    // Trailing newlines and blanks end nothing.
    while matches!(
        toks.last(),
        Some(Tok::Op {
            op: Op::Newline,
            ..
        })
    ) {
        toks.pop();
    }
    let mut cut = None;
    loop {
        let last_op = toks.iter().rposition(|t| matches!(t, Tok::Op { .. }));
        if let Some(at) = last_op {
            if let Tok::Op {
                start,
                op: Op::Pipe | Op::PipeAll,
            } = toks[at]
            {
                // The stages of this pipeline before the cap.
                let first = toks[..at]
                    .iter()
                    .rposition(|t| matches!(t, Tok::Op { op, .. } if !matches!(op, Op::Pipe | Op::PipeAll)))
                    .map_or(0, |i| i + 1);
                if is_cap(&toks[at + 1..], &text)
                    && !toks[first..at]
                        .split(|t| matches!(t, Tok::Op { .. }))
                        .any(|stage| never_ends(stage, &text))
                {
                    toks.truncate(at);
                    cut = Some(start);
                    continue;
                }
            }
        }
        let stage_start = last_op.map_or(0, |i| i + 1);
        if let Some(Tok::Redirect {
            start,
            fd: Some(2),
            op: ">&",
            dup: Some(target),
            ..
        }) = toks.last()
        {
            let start = *start;
            let others = &toks[stage_start..toks.len() - 1];
            if target == "1"
                && start > 0
                && s[start - 1].is_ascii_whitespace()
                && !others.iter().any(redirects_output)
                && toks.len() - 1 > stage_start
            {
                toks.pop();
                cut = Some(start);
                continue;
            }
        }
        break;
    }
    match cut {
        Some(at) => BashFixup {
            command: command[..at].trim_end().to_string(),
            stripped: true,
        },
        None => unchanged(),
    }
}

/// Whether a redirection sends standard output (or everything) somewhere.
fn redirects_output(t: &Tok) -> bool {
    matches!(
        t,
        Tok::Redirect {
            fd: None | Some(1),
            op: ">" | ">>" | ">|" | ">&",
            ..
        } | Tok::Redirect { op: "&>", .. }
    )
}

/// Whether a pipeline stage is a plain `head`/`tail` count cap.
fn is_cap<'s>(stage: &[Tok], text: &impl Fn(&Tok) -> &'s [u8]) -> bool {
    let mut words = Vec::new();
    for t in stage {
        match t {
            Tok::Word { literal: true, .. } => words.push(text(t)),
            _ => return false,
        }
    }
    let Some((&program, args)) = words.split_first() else {
        return false;
    };
    if program != b"head" && program != b"tail" {
        return false;
    }
    let count = |v: &[u8]| !v.is_empty() && v.len() <= 12 && v.iter().all(u8::is_ascii_digit);
    let mut i = 0;
    while i < args.len() {
        let a = args[i];
        let ok = match a {
            b"-q" | b"--quiet" | b"--silent" => true,
            b"-n" | b"-c" | b"--lines" | b"--bytes" => {
                i += 1;
                args.get(i).is_some_and(|v| count(v))
            }
            _ => {
                if let Some(v) = a.strip_prefix(b"--lines=").or(a.strip_prefix(b"--bytes=")) {
                    count(v)
                } else if let Some(v) = a.strip_prefix(b"-n").or(a.strip_prefix(b"-c")) {
                    count(v)
                } else if let Some(v) = a.strip_prefix(b"-") {
                    count(v)
                } else {
                    false
                }
            }
        };
        if !ok {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether a pipeline stage is a producer known not to end by itself.
fn never_ends<'s>(stage: &[Tok], text: &impl Fn(&Tok) -> &'s [u8]) -> bool {
    let words: Vec<&[u8]> = stage
        .iter()
        .filter(|t| matches!(t, Tok::Word { .. }))
        .map(text)
        .collect();
    if words.iter().any(|w| {
        [&b"/dev/zero"[..], b"/dev/urandom", b"/dev/random"]
            .iter()
            .any(|dev| w.windows(dev.len()).any(|x| x == *dev))
    }) {
        return true;
    }
    if words
        .first()
        .is_some_and(|w| w.starts_with(b"while") || w.starts_with(b"until"))
    {
        return true;
    }
    // The program: the first word that is not a variable assignment.
    let Some(program) = words.iter().find(|w| !w.contains(&b'=')) else {
        return false;
    };
    let has = |flags: &[&[u8]]| {
        words.iter().any(|w| {
            flags.iter().any(|f| w == f)
                || (w.starts_with(b"--follow") && flags.contains(&&b"--follow"[..]))
                || (w.len() > 1
                    && w[0] == b'-'
                    && w[1] != b'-'
                    && flags.iter().any(|f| f.len() == 2 && w[1..].contains(&f[1])))
        })
    };
    match *program {
        b"yes" | b"watch" | b"top" | b"htop" => true,
        b"ping" | b"ping6" => !has(&[b"-c"]),
        _ => has(&[b"-f", b"-F", b"--follow"]) && is_follower(program),
    }
}

/// Programs whose `-f` means "follow forever".
fn is_follower(program: &[u8]) -> bool {
    matches!(
        program,
        b"tail" | b"journalctl" | b"kubectl" | b"docker" | b"podman"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Commands and what remains of them (`None`: left alone).
    const TABLE: &[(&str, Option<&str>)] = &[
        // Caps that go.
        ("ls -la | head -20", Some("ls -la")),
        ("ls | head", Some("ls")),
        ("ls | head -n 5", Some("ls")),
        ("ls | head -n5", Some("ls")),
        ("ls | head --lines=5", Some("ls")),
        ("ls | head --lines 5", Some("ls")),
        ("ls | head -c 100", Some("ls")),
        ("ls | head -q -n 3", Some("ls")),
        ("ls | tail -5", Some("ls")),
        ("ls | tail -n 5", Some("ls")),
        ("ls | tail", Some("ls")),
        ("ls|head -3", Some("ls")),
        ("ls | head -5   ", Some("ls")),
        ("ls | head -5\n", Some("ls")),
        ("ls |& head -5", Some("ls")),
        ("ls | sort | head -5", Some("ls | sort")),
        ("ls | head -20 | tail -5", Some("ls")),
        ("ls && ls | head -5", Some("ls && ls")),
        ("cd /tmp; ls | head -5", Some("cd /tmp; ls")),
        ("ls\npwd | head -1", Some("ls\npwd")),
        ("ls | \\\n  head -5", Some("ls")),
        ("{ ls; pwd; } | head -5", Some("{ ls; pwd; }")),
        ("(ls; pwd) | head -5", Some("(ls; pwd)")),
        (
            "for i in 1 2 3; do echo $i; done | head -2",
            Some("for i in 1 2 3; do echo $i; done"),
        ),
        (
            "if true; then ls; fi | tail -1",
            Some("if true; then ls; fi"),
        ),
        ("echo \"it's\" | head -1", Some("echo \"it's\"")),
        ("echo 'a|b' | head -1", Some("echo 'a|b'")),
        ("echo $'a\\'b' | head -1", Some("echo $'a\\'b'")),
        (
            "echo \"$(ls | wc -l)\" | head -1",
            Some("echo \"$(ls | wc -l)\""),
        ),
        (
            "x=$(printf '%s' \")\"); ls | head -1",
            Some("x=$(printf '%s' \")\"); ls"),
        ),
        (
            "diff <(ls a) <(ls b) | head -5",
            Some("diff <(ls a) <(ls b)"),
        ),
        ("echo ${x:-\"|\"} | head -1", Some("echo ${x:-\"|\"}")),
        (
            "grep -r 'foo|bar' . | head -20",
            Some("grep -r 'foo|bar' ."),
        ),
        ("cmd 2>/dev/null | head -3", Some("cmd 2>/dev/null")),
        // 2>&1 that goes.
        ("make 2>&1", Some("make")),
        ("make 2>&1 | tail -50", Some("make")),
        ("make 2>&1 | head -n 50", Some("make")),
        ("ls | grep x 2>&1", Some("ls | grep x")),
        ("make 2>&1 2>&1", Some("make")),
        ("{ make; } 2>&1", Some("{ make; }")),
        // Left alone: not a cap at the end.
        ("head -5 file.txt", None),
        ("ls | head -5 file.txt", None),
        ("ls | head -n -5", None),
        ("ls | tail -n +5", None),
        ("ls | tail -f", None),
        ("ls | tail -F", None),
        ("ls | head -n $N", None),
        ("ls | head -n \"5\"", None),
        ("ls | \"head\" -5", None),
        ("ls | h\\ead -5", None),
        ("ls | head -5 > out.txt", None),
        ("ls | head -5 2>&1 >x", None),
        ("ls | LC_ALL=C head -5", None),
        ("ls | /usr/bin/head -5", None),
        ("ls | head -5 && echo done", None),
        ("ls | head -5 &", None),
        ("ls | head -5; echo x", None),
        ("ls | head -5;", None),
        ("false || head -5", None),
        ("ls | head -5 | grep x", None),
        ("ls | head -1k", None),
        // Left alone: the pipe is not at the top level.
        ("echo \"a | head -5\"", None),
        ("echo 'a | head -5'", None),
        ("echo a \\| head -5", None),
        ("echo $(ls | head -5)", None),
        ("echo `ls | head -5`", None),
        ("(ls | head -5)", None),
        ("{ ls | head -5; }", None),
        ("echo ${x:-a | head -5}", None),
        ("echo $'| head -5'", None),
        ("echo \"$(echo \")\" | head -5)\"", None),
        // Left alone: in doubt.
        ("cat <<EOF | head -2\na\nb\nEOF", None),
        ("ls | head -5 # first five", None),
        ("case $x in a) ls;; esac | head -1", None),
        ("echo 'unterminated | head -1", None),
        ("echo \"unterminated | head -1", None),
        ("echo $(unterminated | head -1", None),
        ("echo ) | head -1", None),
        ("ls | head -5 \\", None),
        // Left alone: the producer would not end without the cap.
        ("yes | head -3", None),
        ("yes | tr y n | head -3", None),
        ("tail -f log.txt | head -5", None),
        ("tail -qf log.txt | head -5", None),
        ("tail --follow=name log | head -5", None),
        ("journalctl -f | head", None),
        ("cat /dev/urandom | head -c 16", None),
        ("head -c 16 /dev/zero | tail -c 4", None),
        ("ping localhost | head -3", None),
        ("watch ls | head -3", None),
        ("while true; do date; done | head -3", None),
        ("until false; do date; done | head -3", None),
        // Left alone: 2>&1 that is not redundant or not at the end.
        ("make > log 2>&1", None),
        ("make >> log 2>&1", None),
        ("make 1>log 2>&1", None),
        ("make &> log 2>&1", None),
        ("make 1>&2 2>&1", None),
        ("make 2>&1 > log", None),
        ("make 2>&1 | grep error", None),
        ("echo \"2>&1\"", None),
        ("echo x2>&1", None),
        ("2>&1", None),
        ("make 3>&1", None),
        // Nothing to do.
        ("", None),
        ("ls", None),
        ("   ", None),
    ];

    #[test]
    fn the_table() {
        let mut failures = Vec::new();
        for (input, want) in TABLE {
            let got = apply_bash_fixups(input);
            let expected = match want {
                Some(c) => BashFixup {
                    command: c.to_string(),
                    stripped: true,
                },
                None => BashFixup {
                    command: input.to_string(),
                    stripped: false,
                },
            };
            if got != expected {
                failures.push(format!("{input:?}: got {got:?}, want {expected:?}"));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn never_panics_on_prefixes_of_the_table() {
        // Every prefix of every case (cut mid-quote, mid-expansion) is read
        // without a panic, and the result is a prefix of the input.
        for (input, _) in TABLE {
            for end in (0..=input.len()).filter(|&i| input.is_char_boundary(i)) {
                let cut = &input[..end];
                let got = apply_bash_fixups(cut);
                assert!(cut.starts_with(&got.command), "{cut:?} -> {got:?}");
                assert_eq!(got.stripped, got.command != cut, "{cut:?}");
            }
        }
    }

    #[test]
    fn what_remains_is_still_valid_bash() {
        // `bash -n` parses without running: every result of a command bash
        // accepts is accepted too (one bash reads them all, one per line of a
        // script of `bash -n -c` checks).
        let mut script = String::new();
        for (input, _) in TABLE {
            let got = apply_bash_fixups(input);
            let quote = |s: &str| format!("'{}'", s.replace('\'', "'\\''"));
            script.push_str(&format!(
                "if bash -n -c {i} 2>/dev/null && ! bash -n -c {o} 2>/dev/null; then echo BAD {i}; fi\n",
                i = quote(input),
                o = quote(&got.command),
            ));
        }
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(&script)
            .output()
            .expect("bash runs");
        assert!(out.status.success());
        assert_eq!(String::from_utf8_lossy(&out.stdout), "");
    }

    #[test]
    fn multibyte_text_is_cut_on_character_boundaries() {
        let got = apply_bash_fixups("echo 'héllo → wörld' | head -1");
        assert_eq!(got.command, "echo 'héllo → wörld'");
        let got = apply_bash_fixups("echo é|head");
        assert_eq!(got.command, "echo é");
    }
}
