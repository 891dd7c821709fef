from scoring.epochs import site_engine


def engine(request) -> dict:
    """The engine the site counts fuel with (its current epoch's, whatever this process runs)."""
    return {"wasmtime_version": site_engine()[0]}
