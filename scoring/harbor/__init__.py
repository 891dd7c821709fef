"""The catalog as Harbor tasks (`manage.py export_harbor`, docs/harbor.md): one task folder per
shown case's latest version and variant, laid out as Harbor's own adapters write them.

    <slug>-<version>-<variant>/
        task.toml           Harbor's configuration: the case in [metadata], timeouts, resources (config.py)
        instruction.md      the prompt the variant renders, and where the workspace is (contents.py)
        environment/        the image's build context: Dockerfile, the site's wasm32 standard
                            library script, the kit's fuel meter and the run root (contents.py)
        solution/           solve.sh and the author's reference solution (payload/solve.sh)
        tests/              test.sh and verify.py (payload/), the kit's fuel meter, the public
                            samples and the run record

`folders.py` puts one task's files together; `exporting.py` chooses the versions and writes the
folders, byte for byte the same from the same catalog and solutions.
"""
