//! Many runs in one shell, mixed the way an agent mixes them: plain commands
//! with their exit codes, timeouts that fire as a command starts, stops in
//! the middle, commands that read the terminal with and without input. Every
//! run is checked (output, exit code, stop flags, the shell kept) and the bad
//! ones counted: there must be none.
//!
//! `PTYPILOT_SHELL_STRESS=<runs>` sets the runs per shell (default 120);
//! `PTYPILOT_SHELL_STRESS_SHELLS=bash,zsh` the shells (default: all of bash,
//! dash, zsh and fish that are installed).

use std::sync::Arc;
use std::time::Duration;

use ptypilot::core::shell::{RunOptions, RunResult, Shell, ShellOptions, Stdin};
use tokio_util::sync::CancellationToken;

fn installed(program: &str) -> bool {
    std::process::Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

fn runs() -> usize {
    std::env::var("PTYPILOT_SHELL_STRESS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(120)
}

/// Runs `opts`; with `input`, written once the run began (the command reads
/// the terminal); with `cancel_on`, cancelled once that text was printed.
async fn run(
    shell: &Arc<Shell>,
    opts: RunOptions,
    input: Option<&str>,
    cancel_on: Option<&'static str>,
) -> RunResult {
    let mut ticket = shell.begin().unwrap();
    if input.is_some() {
        ticket.open_input();
    }
    if let Some(input) = input {
        shell.write(input.as_bytes()).unwrap();
    }
    let cancel = CancellationToken::new();
    let trip = cancel.clone();
    let mut seen = String::new();
    ticket
        .run(opts, cancel, move |chunk| {
            seen.push_str(&chunk);
            if cancel_on.is_some_and(|text| seen.contains(text)) {
                trip.cancel();
            }
            async {}
        })
        .await
        .unwrap()
}

/// One shell, `n` runs; returns the descriptions of the bad ones.
async fn stress(program: &str, n: usize) -> Vec<String> {
    let fish = program == "fish";
    let shell = Arc::new(Shell::new(ShellOptions {
        shell: Some(program.into()),
        ..ShellOptions::default()
    }));
    let mut bad = Vec::new();
    run(&shell, RunOptions::new("true"), None, None).await;
    let mut pid = shell.pid();
    for i in 0..n {
        let started = std::time::Instant::now();
        let (what, result, ok): (&str, RunResult, fn(&RunResult, usize) -> bool) = match i % 5 {
            0 => {
                let code = i % 7;
                let exit = if fish {
                    format!("return {code}")
                } else {
                    format!("(exit {code})")
                };
                let r = run(
                    &shell,
                    RunOptions::new(format!("echo run {i}; {exit}")),
                    None,
                    None,
                )
                .await;
                let ok = |r: &RunResult, i: usize| {
                    r.output == format!("run {i}\n")
                        && r.exit_code == Some((i % 7) as i32)
                        && !r.timed_out
                };
                ("plain", r, ok)
            }
            1 => {
                let mut opts = RunOptions::new("sleep 5; echo ran");
                opts.timeout = Some(Duration::from_millis((i % 4) as u64));
                let r = run(&shell, opts, None, None).await;
                let ok = |r: &RunResult, _: usize| r.timed_out && r.output.is_empty();
                ("timeout at the start", r, ok)
            }
            2 => {
                let r = run(
                    &shell,
                    RunOptions::new("echo go; sleep 100"),
                    None,
                    Some("go\n"),
                )
                .await;
                let ok = |r: &RunResult, _: usize| r.cancelled && r.output == "go\n";
                ("stop mid-run", r, ok)
            }
            3 => {
                let mut opts = RunOptions::new("read x </dev/tty; echo \"[$x]\"");
                opts.stdin = Stdin::Terminal;
                opts.timeout = Some(Duration::from_secs(20));
                let r = run(&shell, opts, Some("abc\n"), None).await;
                // fish's `read` shows its own prompt and line on the terminal.
                let ok = |r: &RunResult, _: usize| {
                    r.exit_code == Some(0) && r.output.trim_end().ends_with("[abc]")
                };
                ("terminal read with input", r, ok)
            }
            _ => {
                let mut opts = RunOptions::new("read x </dev/tty; echo \"[$x]\"");
                opts.timeout = Some(Duration::from_millis(30 + (i % 3) as u64 * 40));
                let r = run(&shell, opts, None, None).await;
                let ok = |r: &RunResult, _: usize| r.timed_out && !r.output.contains("[a");
                ("terminal read, nothing typed", r, ok)
            }
        };
        // A shell killed by the run before shows as a new one now.
        let kept = pid.is_none() || shell.pid() == pid;
        if !ok(&result, i) || !kept || result.warning.is_some() {
            bad.push(format!(
                "{program} run {i} ({what}): {result:?}, shell kept: {kept}, {} ms",
                started.elapsed().as_millis()
            ));
        }
        pid = shell.pid();
    }
    shell.close().await;
    bad
}

#[test]
fn thousands_of_mixed_runs_have_no_bad_run() {
    let n = runs();
    let only = std::env::var("PTYPILOT_SHELL_STRESS_SHELLS").unwrap_or_default();
    let shells: Vec<&str> = ["bash", "dash", "zsh", "fish"]
        .into_iter()
        .filter(|s| installed(s) && (only.is_empty() || only.split(',').any(|o| o == *s)))
        .collect();
    let threads: Vec<_> = shells
        .iter()
        .map(|&program| {
            std::thread::spawn(move || {
                tokio::runtime::Builder::new_current_thread()
                    .enable_time()
                    .build()
                    .unwrap()
                    .block_on(stress(program, n))
            })
        })
        .collect();
    let bad: Vec<String> = threads
        .into_iter()
        .flat_map(|t| t.join().unwrap())
        .collect();
    eprintln!("{} runs in each of {shells:?}: {} bad", n, bad.len());
    assert!(bad.is_empty(), "{bad:#?}");
}
