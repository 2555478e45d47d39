//! The core `Shell` against real shells, without Node: state between runs,
//! streamed output, stopping, close. (The Vitest suite covers the JS API.)

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ptypilot::core::ErrorCode;
use ptypilot::core::proc_tree::ProcRef;
use ptypilot::core::shell::{RunOptions, RunResult, Shell, ShellOptions};
use tokio_util::sync::CancellationToken;

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap()
        .block_on(f)
}

fn installed(program: &str) -> bool {
    std::process::Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

fn shells() -> Vec<&'static str> {
    ["bash", "dash", "zsh"]
        .into_iter()
        .filter(|s| installed(s))
        .collect()
}

fn new_shell(program: &str) -> Arc<Shell> {
    Arc::new(Shell::new(ShellOptions {
        shell: Some(program.into()),
        ..ShellOptions::default()
    }))
}

async fn run(shell: &Arc<Shell>, opts: RunOptions) -> RunResult {
    shell
        .begin()
        .unwrap()
        .run(opts, CancellationToken::new(), |_| async {})
        .await
        .unwrap()
}

#[test]
fn keeps_state_and_reports_status() {
    for program in shells() {
        block_on(async {
            let shell = new_shell(program);
            run(&shell, RunOptions::new("cd /tmp; X=kept")).await;
            let r = run(&shell, RunOptions::new("pwd; echo $X; (exit 9)")).await;
            assert_eq!(r.output, "/tmp\nkept\n", "{program}");
            assert_eq!(r.exit_code, Some(9), "{program}");
            shell.close().await;
        });
    }
}

#[test]
fn streams_output_as_it_comes() {
    for program in shells() {
        block_on(async {
            let shell = new_shell(program);
            let chunks = Arc::new(Mutex::new(Vec::<String>::new()));
            let seen = chunks.clone();
            let r = shell
                .begin()
                .unwrap()
                .run(
                    RunOptions::new("echo one; printf two"),
                    CancellationToken::new(),
                    move |chunk| {
                        seen.lock().unwrap().push(chunk);
                        async {}
                    },
                )
                .await
                .unwrap();
            assert_eq!(r.output, "one\ntwo", "{program}");
            assert_eq!(chunks.lock().unwrap().concat(), r.output, "{program}");
            shell.close().await;
        });
    }
}

#[test]
fn one_run_at_a_time() {
    let shell = Arc::new(Shell::new(ShellOptions::default()));
    let ticket = shell.begin().unwrap();
    let err = shell.begin().err().unwrap();
    assert_eq!(err.code, ErrorCode::AlreadyRunning);
    drop(ticket);
    assert!(shell.begin().is_ok());
}

#[test]
fn cancel_and_timeout_stop_the_command_not_the_shell() {
    for program in shells() {
        block_on(async {
            let shell = new_shell(program);
            let mut opts = RunOptions::new("sleep 100");
            opts.timeout = Some(Duration::from_millis(100));
            let started = Instant::now();
            let r = run(&shell, opts).await;
            assert!(r.timed_out && r.exit_code.is_none(), "{program}: {r:?}");
            assert!(started.elapsed() < Duration::from_secs(2), "{program}");
            let pid = shell.pid();

            let cancel = CancellationToken::new();
            let trip = cancel.clone();
            let r = shell
                .begin()
                .unwrap()
                .run(
                    RunOptions::new("echo go; sleep 100"),
                    cancel,
                    move |chunk| {
                        if chunk.contains("go") {
                            trip.cancel();
                        }
                        async {}
                    },
                )
                .await
                .unwrap();
            assert!(r.cancelled && !r.timed_out, "{program}: {r:?}");
            assert_eq!(run(&shell, RunOptions::new("echo ok")).await.output, "ok\n");
            assert_eq!(shell.pid(), pid, "{program}: the shell survived");
            shell.close().await;
        });
    }
}

#[test]
fn close_ends_the_shell_and_its_jobs() {
    for program in shells() {
        block_on(async {
            let shell = new_shell(program);
            let r = run(&shell, RunOptions::new("sleep 1000 & echo $!")).await;
            let job: i32 = r.output.trim().lines().last().unwrap().parse().unwrap();
            let job = ProcRef::of(job).unwrap();
            let leader = ProcRef::of(shell.pid().unwrap()).unwrap();
            shell.close().await;
            assert!(!job.alive(), "{program}: background job survived");
            assert!(!leader.alive(), "{program}: shell survived");
            let err = shell.begin().err().unwrap();
            assert_eq!(err.code, ErrorCode::NotRunning);
        });
    }
}
