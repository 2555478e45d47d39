//! Recordings: a session written as an asciicast v2 file, which asciinema
//! (and ptypilot's own replay) can play.
//!
//! The first line is the header (size, start time, command, `TERM`); each
//! further line one event, `[seconds, kind, data]`: `"o"` output as the
//! terminal received it (decoded text, escape sequences included), `"i"`
//! input written to the program, `"r"` a resize (`"COLSxROWS"`). Every event
//! is flushed as it is written, so the file is complete up to the last event
//! while the program runs, and closed before the exit is published. A write
//! error (a full disk) ends the recording; what was written stays.
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use crate::core::error::{Error, Result};

/// What the header says about the session.
#[derive(Debug, Clone)]
pub(super) struct Header<'a> {
    pub(super) cols: u16,
    pub(super) rows: u16,
    /// The command line, for people (`"vim notes.txt"`).
    pub(super) command: String,
    pub(super) term: Option<&'a str>,
}

/// An asciicast v2 file being written.
pub(super) struct Recorder {
    out: Option<BufWriter<File>>,
    start: Instant,
    /// Seconds of the last event: timestamps never go back.
    last: f64,
    path: PathBuf,
}

impl Recorder {
    /// Creates (or truncates) `path` and writes the header. `ERR_INVALID_ARG`
    /// naming the path when it cannot be created.
    pub(super) fn create(path: &Path, header: &Header<'_>) -> Result<Recorder> {
        let fail = |e: std::io::Error| {
            Error::invalid_arg(format!(
                "options.record: cannot write the recording {}: {e}",
                path.display()
            ))
        };
        let file = File::create(path).map_err(fail)?;
        let mut out = BufWriter::new(file);
        let timestamp = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let mut head = serde_json::json!({
            "version": 2,
            "width": header.cols,
            "height": header.rows,
            "timestamp": timestamp,
            "command": header.command,
        });
        if let Some(term) = header.term {
            head["env"] = serde_json::json!({ "TERM": term });
        }
        writeln!(out, "{head}")
            .and_then(|()| out.flush())
            .map_err(fail)?;
        Ok(Recorder {
            out: Some(out),
            start: Instant::now(),
            last: 0.0,
            path: path.to_owned(),
        })
    }

    /// Output the terminal received.
    pub(super) fn output(&mut self, text: &str) {
        if !text.is_empty() {
            self.event("o", text);
        }
    }

    /// Input written to the program (bytes that are not UTF-8 become U+FFFD).
    pub(super) fn input(&mut self, bytes: &[u8]) {
        if !bytes.is_empty() {
            self.event("i", &String::from_utf8_lossy(bytes));
        }
    }

    /// The terminal was resized.
    pub(super) fn resize(&mut self, cols: u16, rows: u16) {
        self.event("r", &format!("{cols}x{rows}"));
    }

    /// Closes the file; later events are dropped.
    pub(super) fn finish(&mut self) {
        if let Some(mut out) = self.out.take() {
            let _ = out.flush();
        }
    }

    /// Removes the file (the program could not be started).
    pub(super) fn discard(mut self) {
        self.out = None;
        let _ = std::fs::remove_file(&self.path);
    }

    fn event(&mut self, kind: &str, data: &str) {
        let Some(out) = &mut self.out else {
            return;
        };
        let at = self.start.elapsed().as_secs_f64().max(self.last);
        self.last = at;
        let data = serde_json::Value::from(data);
        let written = writeln!(out, "[{at:.6}, \"{kind}\", {data}]").and_then(|()| out.flush());
        if written.is_err() {
            // Ends the recording; what was written stays readable.
            self.out = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_and_events_are_asciicast_v2_lines() {
        let dir = std::env::temp_dir().join(format!("ptypilot-rec-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.cast");
        let header = Header {
            cols: 80,
            rows: 24,
            command: "vim x".into(),
            term: Some("xterm-256color"),
        };
        let mut r = Recorder::create(&path, &header).unwrap();
        r.output("a\u{1b}[1m\"b\"\r\n");
        r.input(b"q\xff");
        r.resize(100, 30);
        r.output("");
        r.finish();
        r.output("dropped");
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[0]["version"], 2);
        assert_eq!(lines[0]["width"], 80);
        assert_eq!(lines[0]["env"]["TERM"], "xterm-256color");
        assert_eq!(lines[1][1], "o");
        assert_eq!(lines[1][2], "a\u{1b}[1m\"b\"\r\n");
        assert_eq!(lines[2][2], "q\u{fffd}");
        assert_eq!(lines[3][1], "r");
        assert_eq!(lines[3][2], "100x30");
        let times: Vec<f64> = lines[1..].iter().map(|l| l[0].as_f64().unwrap()).collect();
        assert!(times.windows(2).all(|w| w[0] <= w[1]));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_path_that_cannot_be_created_is_an_invalid_argument() {
        let header = Header {
            cols: 80,
            rows: 24,
            command: String::new(),
            term: None,
        };
        let err = Recorder::create(Path::new("/nonexistent-dir/x.cast"), &header)
            .err()
            .unwrap();
        assert_eq!(err.code.as_str(), "ERR_INVALID_ARG");
        assert!(
            err.message.contains("/nonexistent-dir/x.cast"),
            "{}",
            err.message
        );
    }
}
