"""What an export says of itself: the dataset card (README.md, with the YAML front matter the
Hugging Face Hub reads: licence, one config per table, each table's features) and the Croissant
description (croissant.json, JSON-LD in the mlcommons Croissant 1.0 vocabulary: the files with
their SHA-256, a record set per table). Both are made from the tables' columns
(scoring/dataset/columns.py) and what was written, and hold one time: the export's.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime

from lib.siteurl import site_url
from scoring.dataset.columns import Column, Table
from scoring.dataset.folders import CROISSANT

TITLE = "Fuelboard results"
# The layout of the tables: a new major version when a column goes or changes meaning.
LAYOUT_VERSION = "1.0.0"
DEFAULT_CONFIG = "entries"
PARQUET_TYPE = "application/x-parquet"  # as Croissant names it
CROISSANT_CONTEXT = {
    "@language": "en", "@vocab": "https://schema.org/", "citeAs": "cr:citeAs", "column": "cr:column",
    "conformsTo": "dct:conformsTo", "cr": "http://mlcommons.org/croissant/", "rai": "http://mlcommons.org/croissant/RAI/",
    "data": {"@id": "cr:data", "@type": "@json"}, "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "dct": "http://purl.org/dc/terms/", "equivalentProperty": "cr:equivalentProperty",
    "examples": {"@id": "cr:examples", "@type": "@json"}, "extract": "cr:extract", "field": "cr:field",
    "fileProperty": "cr:fileProperty", "fileObject": "cr:fileObject", "fileSet": "cr:fileSet", "format": "cr:format",
    "includes": "cr:includes", "isLiveDataset": "cr:isLiveDataset", "jsonPath": "cr:jsonPath", "key": "cr:key",
    "md5": "cr:md5", "parentField": "cr:parentField", "path": "cr:path", "recordSet": "cr:recordSet",
    "references": "cr:references", "regex": "cr:regex", "repeated": "cr:repeated", "replace": "cr:replace",
    "samplingRate": "cr:samplingRate", "sc": "https://schema.org/", "separator": "cr:separator",
    "source": "cr:source", "subField": "cr:subField", "transform": "cr:transform",
}


@dataclass(frozen=True)
class WrittenTable:
    table: Table
    rows: int
    arrow_bytes: int  # the rows' size as Arrow holds them in memory (the Hub's num_bytes)
    file_bytes: int
    sha256: str


@dataclass(frozen=True)
class About:
    """What the metadata says besides the tables."""

    exported_at: datetime
    license: str
    agents_as_of: datetime | None  # the agents matrix's last refresh (None: never computed)

    @property
    def when(self) -> str:
        return moment(self.exported_at)


def moment(value: datetime) -> str:
    """A UTC time to the second: 2026-12-05T03:00:00Z."""
    return value.strftime("%Y-%m-%dT%H:%M:%SZ")


def lead() -> str:
    return (f"The public results of {site_url('/')}: every shown case version, every entry on their "
            "leaderboards with its fuel input by input, and the agents matrix, as the site's pages and its API "
            "show them. Fuel counts WebAssembly instructions and is the same on any machine: an entry's total "
            "fuel is the sum over its case version's held-out stress inputs, and a leaderboard ranks entries by "
            "it, fewest first. No file holds a held-out input or an expected answer.")


# --- the dataset card --------------------------------------------------------------------------------


def card(written: list[WrittenTable], about: About) -> str:
    """README.md: the Hub's front matter, then each table and its columns in words."""
    front = {
        "license": about.license, "pretty_name": TITLE, "tags": ["benchmark", "code", "performance", "webassembly"],
        "configs": [{"config_name": item.table.name, "data_files": [{"split": "train", "path": item.table.file}],
                     **({"default": True} if item.table.name == DEFAULT_CONFIG else {})} for item in written],
        "dataset_info": [{
            "config_name": item.table.name,
            "features": [{"name": column.name, **column.kind.feature} for column in item.table.columns],
            "splits": [{"name": "train", "num_bytes": item.arrow_bytes, "num_examples": item.rows}],
            "download_size": item.file_bytes, "dataset_size": item.arrow_bytes,
        } for item in written],
    }
    matrix = f"the agents matrix as of {moment(about.agents_as_of)}" if about.agents_as_of else \
        "the agents matrix not computed yet"
    lines = ["---", *yaml_lines(front), "---", "", f"# {TITLE}", "", lead(), "",
             f"Exported at {about.when}; {matrix}. Licence: `{about.license}`. The same tables are described "
             f"in [Croissant]({CROISSANT}) (mlcommons Croissant 1.0).", "",
             "| table | rows | a row is |", "|---|---:|---|"]
    lines += [f"| [`{item.table.file}`](#{item.table.name}) | {item.rows:,} | {item.table.meaning} |"
              for item in written]
    for item in written:
        lines += ["", f"## {item.table.name}", "", item.table.meaning, "",
                  "| column | type | meaning |", "|---|---|---|"]
        lines += [f"| `{column.name}` | {type_words(column)} | {column.meaning} |" for column in item.table.columns]
    return "\n".join(lines) + "\n"


def type_words(column: Column) -> str:
    feature = column.kind.feature
    words = f"list of {feature['list']}" if "list" in feature else feature["dtype"]
    return f"{words} or null" if column.nullable else words


PLAIN = re.compile(r"[a-z_][a-z0-9_./-]*")
YAML_WORDS = {"true", "false", "null", "yes", "no", "on", "off", "y", "n", "~"}


def yaml_scalar(value) -> str:
    """A YAML scalar: a plain word where it reads as the same string, otherwise a double-quoted
    (JSON) string, which YAML reads as written."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if PLAIN.fullmatch(value) and value not in YAML_WORDS:
        return value
    return json.dumps(value, ensure_ascii=False)


def yaml_lines(value, indent: int = 0) -> list[str]:
    """Block YAML of dicts, lists and scalars (the front matter's shapes)."""
    pad = "  " * indent
    lines: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, (dict, list)):
                lines += [f"{pad}{key}:", *yaml_lines(item, indent + 1)]
            else:
                lines.append(f"{pad}{key}: {yaml_scalar(item)}")
    else:
        for item in value:
            if isinstance(item, (dict, list)):
                nested = yaml_lines(item, indent + 1)
                lines += [f"{pad}- {nested[0].lstrip()}", *nested[1:]]
            else:
                lines.append(f"{pad}- {yaml_scalar(item)}")
    return lines


# --- Croissant ------------------------------------------------------------------------------------------


def croissant(written: list[WrittenTable], about: About) -> dict:
    """croissant.json: the dataset, its Parquet files (relative to this file) and a record set per table."""
    return {
        "@context": CROISSANT_CONTEXT, "@type": "sc:Dataset", "conformsTo": "http://mlcommons.org/croissant/1.0",
        "name": TITLE, "description": lead(), "license": about.license, "url": site_url("/"),
        "citeAs": f"{TITLE}, {site_url('/')}, exported at {about.when}", "version": LAYOUT_VERSION,
        "datePublished": about.when,
        "distribution": [{
            "@type": "cr:FileObject", "@id": item.table.file, "name": item.table.file,
            "description": f"the {item.table.name} table: {item.rows} rows", "contentUrl": item.table.file,
            "contentSize": f"{item.file_bytes} B", "encodingFormat": PARQUET_TYPE, "sha256": item.sha256,
        } for item in written],
        "recordSet": [record_set(item.table) for item in written],
    }


def record_set(table: Table) -> dict:
    keys = [{"@id": f"{table.name}/{name}"} for name in table.key]
    return {
        "@type": "cr:RecordSet", "@id": table.name, "name": table.name, "description": table.meaning,
        "key": keys[0] if len(keys) == 1 else keys,
        "field": [{
            "@type": "cr:Field", "@id": f"{table.name}/{column.name}", "name": column.name,
            "description": column.meaning, "dataType": column.kind.croissant,
            **({"repeated": True} if column.kind.repeated else {}),
            "source": {"fileObject": {"@id": table.file}, "extract": {"column": column.name}},
        } for column in table.columns],
    }
