//! Sets the linker flags a Node addon needs (undefined `napi_*` symbols are
//! resolved by the host process at load time).
fn main() {
    napi_build::setup();
}
