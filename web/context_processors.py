from engine.sandbox import WASMTIME_VERSION


def engine(request) -> dict:
    return {"wasmtime_version": WASMTIME_VERSION}
