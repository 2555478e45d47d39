//! `CancelToken`: how an `AbortSignal` reaches Rust.
//!
//! The JS layer creates a token per call that takes a `signal`, cancels it from
//! the signal's `abort` event, and passes it to the native method, which waits
//! on [`CancelToken::token`] (a `tokio_util` cancellation token).

use napi_derive::napi;
use tokio_util::sync::CancellationToken;

/// A cancellation flag shared between JS and a native wait. Internal: the
/// public API takes an `AbortSignal` and the JS layer bridges it to this.
#[napi]
#[derive(Default)]
pub struct CancelToken {
    token: CancellationToken,
}

#[napi]
impl CancelToken {
    /// A token that is not cancelled yet.
    #[napi(constructor, catch_unwind)]
    pub fn new() -> Self {
        CancelToken::default()
    }

    /// Cancels every wait that holds this token.
    #[napi(catch_unwind)]
    pub fn cancel(&self) {
        self.token.cancel();
    }

    /// True once cancelled.
    #[napi(getter, catch_unwind)]
    pub fn cancelled(&self) -> bool {
        self.token.is_cancelled()
    }
}

impl CancelToken {
    /// The Rust side of the token.
    pub fn token(&self) -> CancellationToken {
        self.token.clone()
    }
}
