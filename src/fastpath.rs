//! Reading on the JS thread: right after input is written, and while a flood
//! arrives and the JS thread keeps up with it, the JS thread's own event loop
//! watches the pty master, so output is read, processed and handed to the
//! output callback on the JS thread as soon as the terminal has it.
//!
//! Otherwise every piece of output takes two wake-ups in a row: the session
//! thread wakes from `poll`, reads and processes, then wakes the JS thread.
//! Here the terminal wakes the JS thread directly, as in a library that reads
//! on the JS thread. Every write *holds* the terminal for the JS thread
//! ([`crate::core::session::Session::listener_holds`]): meanwhile the session
//! thread does not watch it, so it is not woken by the answer either.
//!
//! Floods too (since 2026-11-27; before, a read that filled a whole batch
//! handed the terminal back, and a flood was read on the session thread):
//! when the session thread wakes the JS thread for a batch or more of output,
//! the JS thread, free at that moment, takes the terminal and reads the rest
//! itself, one `read` per wake-up of its loop, as libuv reads a stream. In a
//! flood that leaves three threads busy — the program, the kernel's tty
//! worker and the JS thread — instead of four on a machine with two cores,
//! and it reads only when its loop says the terminal has something, never a
//! string of reads that each wait for the tty worker (see
//! `core::session::output::ReadMode` and
//! bench/notes/2026-11-27-where-the-time-goes-in-a-flood.md). Each read that brings output renews the hold. It reads one flood
//! at a time: with floods in several sessions at once, the others stay on
//! their session threads, which read them in parallel. In a flood taken from
//! the session thread every read leaves its output waiting (in order, in the
//! session's outbox) until 64 KiB wait; after a write, only a read that
//! found the terminal's buffer full does, until a read that is not full
//! comes (the usual end of an answer's flood). A timer of 1 ms after the last
//! read delivers the rest. So a flood costs one JS call per 64 KiB, not one
//! per read — also a flood written a line per `write` (`seq`), whose reads
//! rarely fill the buffer.
//!
//! The hold ends, and the session thread reads again, at the terminal's end,
//! at the program's exit (the drain and the exit stay on the session thread),
//! while the listener is paused or behind, and 50 ms after the last write or
//! read (a JS thread busy elsewhere stalls the program for at most that long;
//! then the session thread reads and keeps the output for it, as always).
//! Both threads read and process under one lock, so order is kept.
//!
//! The watch is a libuv poll handle on a duplicate of the master (and that
//! timer), made the
//! first time the JS thread takes the terminal (a session nobody types into
//! and that never floods costs nothing more), and never
//! keeps the event loop alive (unreferenced). It is closed before the exit is
//! delivered (the duplicate keeps the terminal open, and libuv keys its
//! watches by descriptor number), when the JS object is collected, or when
//! the JS environment is torn down (an async cleanup hook: a worker's loop
//! must have no open handles when it closes).
//!
//! libuv's functions are looked up in the running Node process at run time,
//! as napi-rs does for Node-API itself, so the crate links without Node (its
//! tests); without them the session thread delivers everything, as it always
//! can. Unix only; elsewhere every function here does nothing.
//!
//! Whether this path is used at all is the JS layer's choice, made once per
//! process from the runtime it runs in ([`set_js_thread_reading`], called by
//! lib/runtime.js), never from the symbols found: other runtimes export
//! libuv's names without libuv's event loop behind them. Bun's are stubs that
//! abort the process (`unsupported uv function: uv_poll_init`); Deno's work,
//! but its poll handle is served by its own event loop, which runs the
//! callback far less often than libuv would (see lib/runtime.js for the
//! measurement). Until the JS layer turns it on, no libuv function is looked
//! up or called, and the session thread delivers everything: that path needs
//! nothing from the runtime but Node-API's threadsafe functions.

#[cfg(unix)]
mod imp {
    use std::cell::RefCell;
    use std::collections::HashMap;
    use std::ffi::{CStr, c_int, c_void};
    use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd};
    use std::ptr;
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicBool, Ordering};

    use napi::sys;

    use crate::core::session::Session;
    use crate::incidents::contain;

    /// `UV_POLL` in libuv's `uv_handle_type`.
    const UV_POLL: c_int = 8;
    /// `UV_TIMER` in libuv's `uv_handle_type`.
    const UV_TIMER: c_int = 13;
    /// `UV_READABLE` in libuv's `uv_poll_event`.
    const UV_READABLE: c_int = 1;
    /// How long output read in a flood may wait for the listener when no more
    /// comes (see `Ready::owed`): the end of a flood taken after a write
    /// usually comes as a read that is not full and is delivered at once; in
    /// a flood taken from the session thread, every read waits up to this.
    const OWED_MS: u64 = 1;

    type PollCb = unsafe extern "C" fn(handle: *mut c_void, status: c_int, events: c_int);
    type CloseCb = unsafe extern "C" fn(handle: *mut c_void);
    type HandleSizeFn = unsafe extern "C" fn(kind: c_int) -> usize;
    type PollInitFn =
        unsafe extern "C" fn(lp: *mut sys::uv_loop_s, h: *mut c_void, fd: c_int) -> c_int;
    type PollStartFn = unsafe extern "C" fn(h: *mut c_void, events: c_int, cb: PollCb) -> c_int;
    type PollStopFn = unsafe extern "C" fn(h: *mut c_void) -> c_int;
    type CloseFn = unsafe extern "C" fn(h: *mut c_void, cb: CloseCb);
    type UnrefFn = unsafe extern "C" fn(h: *mut c_void);
    type TimerCb = unsafe extern "C" fn(handle: *mut c_void);
    type TimerInitFn = unsafe extern "C" fn(lp: *mut sys::uv_loop_s, h: *mut c_void) -> c_int;
    type TimerStartFn =
        unsafe extern "C" fn(h: *mut c_void, cb: TimerCb, timeout: u64, repeat: u64) -> c_int;
    type TimerStopFn = unsafe extern "C" fn(h: *mut c_void) -> c_int;

    /// The libuv functions used, from the Node process.
    struct Uv {
        handle_size: HandleSizeFn,
        poll_init: PollInitFn,
        poll_start: PollStartFn,
        poll_stop: PollStopFn,
        close: CloseFn,
        unref: UnrefFn,
        timer_init: TimerInitFn,
        timer_start: TimerStartFn,
        timer_stop: TimerStopFn,
    }

    /// The function `name` of the running process, as type `F` (a function
    /// pointer type that spells out its C signature).
    ///
    /// # Safety
    /// `F` must be the C signature of that function.
    unsafe fn sym<F: Copy>(name: &CStr) -> Option<F> {
        const { assert!(std::mem::size_of::<F>() == std::mem::size_of::<*mut c_void>()) };
        // SAFETY: dlsym with a NUL-terminated name; a null result is checked.
        let p = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) };
        // SAFETY: a non-null function address as a function pointer of the
        // same size, whose signature the caller vouches for.
        (!p.is_null()).then(|| unsafe { std::mem::transmute_copy::<*mut c_void, F>(&p) })
    }

    fn uv() -> Option<&'static Uv> {
        static UV: OnceLock<Option<Uv>> = OnceLock::new();
        UV.get_or_init(|| {
            // SAFETY: each field's type is the C signature of libuv's function
            // of that name.
            unsafe {
                Some(Uv {
                    handle_size: sym(c"uv_handle_size")?,
                    poll_init: sym(c"uv_poll_init")?,
                    poll_start: sym(c"uv_poll_start")?,
                    poll_stop: sym(c"uv_poll_stop")?,
                    close: sym(c"uv_close")?,
                    unref: sym(c"uv_unref")?,
                    timer_init: sym(c"uv_timer_init")?,
                    timer_start: sym(c"uv_timer_start")?,
                    timer_stop: sym(c"uv_timer_stop")?,
                })
            }
        })
        .as_ref()
    }

    /// A handle's memory: libuv's `uv_poll_t` or `uv_timer_t`, whose first
    /// field is the user `data` pointer (here: the watch's id). 8-byte
    /// aligned.
    struct HandleMem(Box<[u64]>);

    impl HandleMem {
        fn new(size: usize) -> Self {
            HandleMem(vec![0u64; size.div_ceil(8)].into_boxed_slice())
        }

        fn ptr(&mut self) -> *mut c_void {
            self.0.as_mut_ptr().cast()
        }
    }

    /// One session's watch. Lives on its JS thread only.
    struct Watch {
        env: sys::napi_env,
        session: Session,
        /// The output callback, `pump(text, exit, raw)`.
        pump: sys::napi_ref,
        context: sys::napi_async_context,
        /// The poll handle, made at the first write (a session nobody types
        /// into costs no descriptor); `Err` once making it failed.
        io: Result<Option<Io>, ()>,
        armed: bool,
        /// Taken for a flood (not after a write): reads that do not fill the
        /// terminal's buffer keep batching too (see `read_ready`).
        flood: bool,
    }

    /// The poll handle on the duplicate of the master, and the timer that
    /// delivers output left waiting in a flood (`Ready::owed`).
    struct Io {
        master: OwnedFd,
        handle: HandleMem,
        timer: HandleMem,
        cleanup: sys::napi_async_cleanup_hook_handle,
    }

    thread_local! {
        /// This JS thread's watches by id.
        static WATCHES: RefCell<HashMap<u64, Watch>> = RefCell::new(HashMap::new());
        static NEXT_ID: std::cell::Cell<u64> = const { std::cell::Cell::new(1) };
    }

    /// Whether the JS thread may read: off until the JS layer, knowing the
    /// runtime, turns it on (see the module docs). Process-wide: a process
    /// runs one runtime.
    static JS_THREAD_READING: AtomicBool = AtomicBool::new(false);

    /// Turns reading on the JS thread on or off for sessions started from
    /// now on (see the module docs).
    pub fn set_enabled(on: bool) {
        JS_THREAD_READING.store(on, Ordering::Relaxed);
    }

    /// Prepares a watch on `session`'s terminal for the JS thread of `env`,
    /// with `pump` as the output callback. Returns its id, or `None` when
    /// there can be none (reading on the JS thread is off, pipes, no libuv):
    /// the session thread then delivers everything, as it always can.
    pub fn open(env: sys::napi_env, session: &Session, pump: sys::napi_value) -> Option<u64> {
        if !JS_THREAD_READING.load(Ordering::Relaxed) {
            return None;
        }
        uv()?;
        if !session.is_pty() {
            return None;
        }
        let ok = sys::Status::napi_ok;
        let mut pump_ref = ptr::null_mut();
        let mut name = ptr::null_mut();
        let mut context = ptr::null_mut();
        // SAFETY: Node-API calls on the JS thread of `env`; every out-pointer
        // is valid.
        let made = unsafe {
            sys::napi_create_reference(env, pump, 1, &mut pump_ref) == ok
                && sys::napi_create_string_utf8(env, c"ptypilot.pty".as_ptr(), 12, &mut name) == ok
                && sys::napi_async_init(env, ptr::null_mut(), name, &mut context) == ok
        };
        let watch = Watch {
            env,
            session: session.clone(),
            pump: pump_ref,
            context,
            io: Ok(None),
            armed: false,
            flood: false,
        };
        if !made {
            dispose(watch);
            return None;
        }
        let id = NEXT_ID.with(|n| {
            let id = n.get();
            n.set(id + 1);
            id
        });
        WATCHES.with(|w| w.borrow_mut().insert(id, watch));
        Some(id)
    }

    /// Makes the poll handle for watch `id`.
    fn make_io(env: sys::napi_env, session: &Session, id: u64) -> Option<Io> {
        let uv = uv()?;
        let master = session.dup_master()?;
        // SAFETY: Node-API and libuv calls on the JS thread of `env`; every
        // out-pointer is valid; an initialised handle is closed on failure.
        unsafe {
            let mut lp = ptr::null_mut();
            if sys::napi_get_uv_event_loop(env, &mut lp) != sys::Status::napi_ok || lp.is_null() {
                return None;
            }
            let mut timer = HandleMem::new((uv.handle_size)(UV_TIMER));
            if (uv.timer_init)(lp, timer.ptr()) != 0 {
                return None;
            }
            *timer.ptr().cast::<usize>() = id as usize;
            (uv.unref)(timer.ptr());
            let mut handle = HandleMem::new((uv.handle_size)(UV_POLL));
            if (uv.poll_init)(lp, handle.ptr(), master.as_raw_fd()) != 0 {
                close_timer(uv, timer);
                return None;
            }
            *handle.ptr().cast::<usize>() = id as usize;
            (uv.unref)(handle.ptr());
            let mut io = Io {
                master,
                handle,
                timer,
                cleanup: ptr::null_mut(),
            };
            // A worker's loop must have no open handles when it is torn down.
            if sys::napi_add_async_cleanup_hook(
                env,
                Some(on_teardown),
                id as *mut c_void,
                &mut io.cleanup,
            ) != sys::Status::napi_ok
            {
                close_io(io);
                return None;
            }
            Some(io)
        }
    }

    /// After a write, or when woken for a flood: watches the terminal and
    /// holds it (see the module docs).
    pub fn arm(id: u64) {
        hold(id, false);
    }

    /// Watches and holds the terminal of watch `id`, for a flood or after a
    /// write.
    fn hold(id: u64, flood: bool) {
        let Some(uv) = uv() else { return };
        WATCHES.with(|w| {
            let mut map = w.borrow_mut();
            let Some(watch) = map.get_mut(&id) else {
                return;
            };
            if let Ok(None) = watch.io {
                watch.io = make_io(watch.env, &watch.session, id).map(Some).ok_or(());
            }
            let Ok(Some(io)) = &mut watch.io else {
                return;
            };
            if !watch.armed {
                // SAFETY: the handle is initialised and not closed (it is in the map).
                watch.armed =
                    unsafe { (uv.poll_start)(io.handle.ptr(), UV_READABLE, on_readable) } == 0;
            }
            if watch.armed {
                watch.flood = flood;
                // Taken again on every write, so the hold lasts while input comes.
                watch.session.listener_holds(true);
            }
        });
    }

    /// When woken for a flood the session thread read: takes the terminal as
    /// [`arm`] does — unless this JS thread already holds another session's
    /// terminal. One thread reading many floods at once is the slowest way
    /// to read them (100 busy sessions: their session threads read in
    /// parallel and in batches), so the JS thread reads one at a time and the
    /// others stay on their session threads.
    pub fn take_flood(id: u64) {
        let busy = WATCHES.with(|w| {
            w.borrow().iter().any(|(other, watch)| {
                *other != id && watch.armed && watch.session.listener_holding()
            })
        });
        if !busy {
            hold(id, true);
        }
    }

    /// Stops and closes the watch (before the exit is delivered, when the JS
    /// object goes away, at teardown). Idempotent.
    pub fn close(id: u64) {
        if let Some(watch) = WATCHES.with(|w| w.borrow_mut().remove(&id)) {
            watch.session.listener_holds(false);
            dispose(watch);
        }
    }

    /// Frees a watch that is out of the map: the Node-API parts now, the
    /// handle as `close_io` does.
    fn dispose(watch: Watch) {
        // SAFETY: on the JS thread of `env`; each is released once, here.
        unsafe {
            if !watch.pump.is_null() {
                sys::napi_delete_reference(watch.env, watch.pump);
            }
            if !watch.context.is_null() {
                sys::napi_async_destroy(watch.env, watch.context);
            }
        }
        if let Ok(Some(io)) = watch.io {
            close_io(io);
        }
    }

    /// Stops the handle, closes the descriptor (libuv no longer watches it)
    /// and closes the handle; its memory and the cleanup hook are released
    /// once libuv is done with it (`on_closed`).
    fn close_io(mut io: Io) {
        let Some(uv) = uv() else { return };
        // Closed first, so its close callback runs before the poll handle's,
        // which removes the cleanup hook (a worker's teardown waits for that).
        // SAFETY: the timer is initialised and closed exactly once, here.
        unsafe { close_timer(uv, io.timer) };
        // SAFETY: the handle is initialised and closed exactly once, here.
        unsafe {
            (uv.poll_stop)(io.handle.ptr());
            drop(io.master);
            let raw = Box::into_raw(Box::new(Closing {
                handle: io.handle,
                cleanup: io.cleanup,
            }));
            let h = (*raw).handle.ptr();
            *h.cast::<*mut Closing>() = raw;
            (uv.close)(h, on_closed);
        }
    }

    /// Stops and closes an initialised timer handle; its memory is freed once
    /// libuv is done with it.
    ///
    /// # Safety
    /// `timer` is an initialised timer handle, closed exactly once, here.
    unsafe fn close_timer(uv: &Uv, mut timer: HandleMem) {
        // SAFETY: see above; the box is reclaimed in `on_timer_closed`.
        unsafe {
            (uv.timer_stop)(timer.ptr());
            let h = timer.ptr();
            let raw = Box::into_raw(Box::new(timer));
            *h.cast::<*mut HandleMem>() = raw;
            (uv.close)(h, on_timer_closed);
        }
    }

    unsafe extern "C" fn on_timer_closed(handle: *mut c_void) {
        contain("closing the fast path's timer", (), || {
            // SAFETY: `close_timer` stored the box that owns this handle in
            // its data field; libuv calls this once.
            drop(unsafe { Box::from_raw(*handle.cast::<*mut HandleMem>()) });
        });
    }

    /// A handle being closed, with what to release when libuv is done.
    struct Closing {
        handle: HandleMem,
        cleanup: sys::napi_async_cleanup_hook_handle,
    }

    // The callbacks below are called by libuv or Node-API, where a panic
    // would abort the process: their bodies run under the panic boundary.

    unsafe extern "C" fn on_closed(handle: *mut c_void) {
        contain("closing the fast path's watch", (), || {
            // SAFETY: `dispose` stored the `Closing` that owns this handle in
            // its data field; libuv calls this once.
            unsafe {
                let closing = Box::from_raw(*handle.cast::<*mut Closing>());
                if !closing.cleanup.is_null() {
                    sys::napi_remove_async_cleanup_hook(closing.cleanup);
                }
            }
        });
    }

    unsafe extern "C" fn on_teardown(
        _handle: sys::napi_async_cleanup_hook_handle,
        id: *mut c_void,
    ) {
        contain("closing the fast path at teardown", (), || close(id as u64));
    }

    unsafe extern "C" fn on_readable(handle: *mut c_void, _status: c_int, _events: c_int) {
        // SAFETY: the data field holds the id (`make_io`).
        let id = unsafe { *handle.cast::<usize>() } as u64;
        let read = contain("the keystroke fast path", false, || {
            readable(id);
            true
        });
        if !read {
            // Whatever state the watch is in, the session thread reads from
            // now on.
            contain("closing the fast path after a panic", (), || close(id));
        }
    }

    /// The terminal of watch `id` has something to read (see the module docs).
    fn readable(id: u64) {
        let Some(uv) = uv() else { return };
        // Take what is needed out of the map: the callback below may write
        // (and arm) or close this watch.
        let found = WATCHES.with(|w| {
            let map = w.borrow();
            let watch = map.get(&id)?;
            let Ok(Some(io)) = &watch.io else { return None };
            let master = io.master.as_raw_fd();
            Some((
                watch.env,
                watch.session.clone(),
                master,
                watch.pump,
                watch.context,
                watch.flood,
            ))
        });
        let Some((env, session, master, pump, context, flood)) = found else {
            return;
        };
        // SAFETY: the watch owns the descriptor and nothing closes it before
        // `read_ready` returns (no JS runs in between).
        let ready = session.read_ready(unsafe { BorrowedFd::borrow_raw(master) }, flood);
        WATCHES.with(|w| {
            if let Some(watch) = w.borrow_mut().get_mut(&id)
                && let Ok(Some(io)) = &mut watch.io
            {
                // SAFETY: the timer is initialised and open (in the map).
                unsafe {
                    if ready.owed {
                        // Restarted by every read that leaves output waiting.
                        (uv.timer_start)(io.timer.ptr(), on_owed, OWED_MS, 0);
                    } else {
                        (uv.timer_stop)(io.timer.ptr());
                    }
                }
            }
        });
        if !ready.keep {
            // The session thread reads again; watch again after the next write
            // or flood.
            WATCHES.with(|w| {
                if let Some(watch) = w.borrow_mut().get_mut(&id)
                    && watch.armed
                    && let Ok(Some(io)) = &mut watch.io
                {
                    watch.armed = false;
                    // SAFETY: the handle is initialised and open (in the map).
                    unsafe { (uv.poll_stop)(io.handle.ptr()) };
                }
            });
        }
        // SAFETY: on the JS thread of `env`, outside any JS frame (a libuv
        // callback).
        unsafe { hand_over(env, &session, pump, context, ready.data, ready.raw) };
    }

    unsafe extern "C" fn on_owed(handle: *mut c_void) {
        // SAFETY: the data field holds the id (`make_io`).
        let id = unsafe { *handle.cast::<usize>() } as u64;
        contain("delivering output read in a flood", (), || owed(id));
    }

    /// No more output came for `OWED_MS` after a read in a flood: the output
    /// left waiting goes to the listener.
    fn owed(id: u64) {
        let found = WATCHES.with(|w| {
            let map = w.borrow();
            let watch = map.get(&id)?;
            Some((watch.env, watch.session.clone(), watch.pump, watch.context))
        });
        let Some((env, session, pump, context)) = found else {
            return;
        };
        let (data, raw) = session.take_output();
        // SAFETY: on the JS thread of `env`, outside any JS frame (a libuv
        // callback).
        unsafe { hand_over(env, &session, pump, context, data, raw) };
    }

    /// Delivers output to the listener, or gives it back to the session when
    /// the call could not be made (the session thread's wake-up brings it).
    ///
    /// # Safety
    /// On the JS thread of `env`, outside any JS frame.
    unsafe fn hand_over(
        env: sys::napi_env,
        session: &Session,
        pump: sys::napi_ref,
        context: sys::napi_async_context,
        data: String,
        raw: Vec<u8>,
    ) {
        if data.is_empty() && raw.is_empty() {
            return;
        }
        // SAFETY: as the caller vouches.
        if let Err((data, raw)) = unsafe { deliver(env, pump, context, data, raw) } {
            session.give_back(data, raw);
        }
    }

    /// Calls `pump(text, null, raw)` (each `null` when empty) in a handle
    /// scope, through `napi_make_callback` so that promises and
    /// `process.nextTick` callbacks run after it. Gives the output back when
    /// the call could not be made.
    unsafe fn deliver(
        env: sys::napi_env,
        pump: sys::napi_ref,
        context: sys::napi_async_context,
        data: String,
        raw: Vec<u8>,
    ) -> Result<(), (String, Vec<u8>)> {
        let ok = sys::Status::napi_ok;
        // SAFETY: see `on_readable`; every out-pointer is valid; the array
        // buffer's memory is `raw.len()` bytes long.
        unsafe {
            let mut scope = ptr::null_mut();
            if sys::napi_open_handle_scope(env, &mut scope) != ok {
                return Err((data, raw));
            }
            let mut func = ptr::null_mut();
            let mut recv = ptr::null_mut();
            let mut null = ptr::null_mut();
            let mut text = ptr::null_mut();
            let mut bytes = ptr::null_mut();
            let mut ready = sys::napi_get_reference_value(env, pump, &mut func) == ok
                && !func.is_null()
                && sys::napi_get_global(env, &mut recv) == ok
                && sys::napi_get_null(env, &mut null) == ok;
            if ready && !data.is_empty() {
                ready = sys::napi_create_string_utf8(
                    env,
                    data.as_ptr().cast(),
                    data.len() as isize,
                    &mut text,
                ) == ok;
            } else {
                text = null;
            }
            if ready && !raw.is_empty() {
                let mut memory = ptr::null_mut();
                let mut buffer = ptr::null_mut();
                ready = sys::napi_create_arraybuffer(env, raw.len(), &mut memory, &mut buffer)
                    == ok
                    && !memory.is_null()
                    && {
                        ptr::copy_nonoverlapping(raw.as_ptr(), memory.cast::<u8>(), raw.len());
                        sys::napi_create_typedarray(
                            env,
                            sys::TypedarrayType::uint8_array,
                            raw.len(),
                            buffer,
                            0,
                            &mut bytes,
                        ) == ok
                    };
            } else {
                bytes = null;
            }
            if !ready {
                sys::napi_close_handle_scope(env, scope);
                return Err((data, raw));
            }
            drop(data);
            drop(raw);
            let argv = [text, null, bytes];
            let mut result = ptr::null_mut();
            let status =
                sys::napi_make_callback(env, context, recv, func, 3, argv.as_ptr(), &mut result);
            if status == sys::Status::napi_pending_exception {
                // As for any callback that throws: an uncaught exception.
                let mut error = ptr::null_mut();
                sys::napi_get_and_clear_last_exception(env, &mut error);
                sys::napi_fatal_exception(env, error);
            }
            sys::napi_close_handle_scope(env, scope);
            Ok(())
        }
    }
}

#[cfg(unix)]
pub use imp::{arm, close, open, take_flood};

/// Lets sessions started from now on read their output on the JS thread
/// (`on`), through the runtime's libuv event loop, or keeps all reading on
/// the session threads (`!on`, the default). Internal: lib/runtime.js calls
/// it once per process with the path chosen for the runtime.
#[napi_derive::napi(catch_unwind)]
// `#[napi]` registers the function with Node only outside `cfg(test)`.
#[cfg_attr(test, allow(dead_code))]
pub fn set_js_thread_reading(on: bool) {
    #[cfg(unix)]
    imp::set_enabled(on);
    #[cfg(not(unix))]
    let _ = on;
}

/// Not available here: the session thread delivers everything.
#[cfg(not(unix))]
pub fn open(
    _env: napi::sys::napi_env,
    _session: &crate::core::session::Session,
    _pump: napi::sys::napi_value,
) -> Option<u64> {
    None
}

/// Does nothing here.
#[cfg(not(unix))]
pub fn arm(_id: u64) {}

/// Does nothing here.
#[cfg(not(unix))]
pub fn close(_id: u64) {}

/// Does nothing here.
#[cfg(not(unix))]
pub fn take_flood(_id: u64) {}
