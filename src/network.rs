//! The network proxy's questions to the person reach JS: the JS layer sets
//! one asker per process ([`set_network_asker`]); each question goes to it
//! as JSON `{ id, host, port }` and comes back through
//! [`answer_network_question`]. See `core::net_proxy`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use napi::bindgen_prelude::*;
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi_derive::napi;

use crate::core::net_proxy::{self, Answer, AskRequest};

type Asker = ThreadsafeFunction<String, (), String, Status, false, true>;

/// The next question's id, and the questions waiting for their answer.
type Waiting = (u32, HashMap<u32, tokio::sync::oneshot::Sender<Answer>>);

/// Questions waiting for their answer, by id.
static WAITING: Mutex<Option<Waiting>> = Mutex::new(None);

/// Sets the process's asker: `asker(json)` is called with `{ id, host,
/// port }` for each host a policy with `ask: true` meets on neither list,
/// and must answer with `answerNetworkQuestion(id, allow)`. `null` removes
/// it (questions are then refused). Internal: `lib/network.js` wraps it.
#[napi(catch_unwind)]
#[cfg_attr(test, allow(dead_code))]
pub fn set_network_asker(asker: Option<Function<'_, String, ()>>) -> Result<()> {
    let Some(asker) = asker else {
        net_proxy::set_asker(None);
        return Ok(());
    };
    let tsfn: Arc<Asker> = Arc::new(
        asker
            .build_threadsafe_function::<String>()
            .callee_handled::<false>()
            .weak::<true>()
            .build()?,
    );
    net_proxy::set_asker(Some(Arc::new(
        move |req: AskRequest, tx: tokio::sync::oneshot::Sender<Answer>| {
            let id = {
                let mut waiting = WAITING.lock().unwrap_or_else(|e| e.into_inner());
                let (next, map) = waiting.get_or_insert_with(|| (1, HashMap::new()));
                let id = *next;
                *next = next.wrapping_add(1).max(1);
                map.insert(id, tx);
                id
            };
            let json = serde_json::json!({ "id": id, "host": req.host, "port": req.port });
            // A closing environment answers nothing: the sender drops, which refuses.
            if tsfn.call(json.to_string(), ThreadsafeFunctionCallMode::NonBlocking) != Status::Ok {
                answer_network_question(id, false, None);
            }
        },
    )));
    Ok(())
}

/// Answers the question `id` (from the asker): `allow` lets the program's
/// connection through; otherwise `reason` says why not (default: the
/// person refused it). An unknown id is ignored.
#[napi(catch_unwind)]
#[cfg_attr(test, allow(dead_code))]
pub fn answer_network_question(id: u32, allow: bool, reason: Option<String>) {
    let tx = WAITING
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .as_mut()
        .and_then(|(_, map)| map.remove(&id));
    if let Some(tx) = tx {
        let _ = tx.send(if allow {
            Ok(())
        } else {
            Err(reason.unwrap_or_else(|| "the person refused it".to_owned()))
        });
    }
}
