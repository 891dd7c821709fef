"""The agents matrix in the API: a page of agents with their figures and cells, and the whole of
it as CSV."""

from __future__ import annotations

from typing import Literal

from django.http import HttpRequest
from ninja import Query, Router

from api.caching import cached_document
from api.cases import Difficulty
from api.results import csv_answer, legacy_csv
from api.schemas import AgentsDocument
from lib.api import ONE_LINE, PAGE_MAX, PAGE_SIZE, PAGE_SIZE_MAX, SINCE, DateParameter, Problem, document, page_links
from lib.csvexport import csv_response
from scoring.agents import Matrix, request_refresh
from scoring.documents import agent_lines, agents_table
from sitecache.models import AGENTS_SNAPSHOT, CATALOG

router = Router(tags=["results"])
Sort = Literal["solved", "score", "pass_rate", "cost"]


def _matrix(query: dict) -> Matrix:
    return Matrix({name: value for name, value in query.items() if value})


CASES_PAGE_SIZE, CASES_PAGE_SIZE_MAX = 20, 100


@router.get("/agents/", response={200: AgentsDocument, 400: Problem, 404: Problem}, url_name="agents")
def agents(request: HttpRequest,
           difficulty: Difficulty | None = None,
           tag: str | None = Query(None, max_length=100, pattern=ONE_LINE),
           harness: str | None = Query(None, max_length=100, pattern=ONE_LINE, description="one harness's agents"),
           since: DateParameter = Query(None, description=SINCE),
           sort: Sort = Query("solved", description="solved (most cases solved first, then score), score (highest "
                                                    "first), pass_rate (highest first) or cost (mean cost per trial, "
                                                    "cheapest first; none recorded last)"),
           page: int = Query(1, ge=1, le=PAGE_MAX),
           page_size: int = Query(PAGE_SIZE, ge=1, le=PAGE_SIZE_MAX),
           cases_page: int = Query(1, ge=1, le=PAGE_MAX, description="which page of the cases the cells are for"),
           cases_page_size: int = Query(CASES_PAGE_SIZE, ge=1, le=CASES_PAGE_SIZE_MAX)):
    """The agents matrix, a tile at a time: a page of agents (a model and its harness) with their trials over
    the latest published version of every case, pass rate with its 95% interval, score and cost, and their
    cells on a page of the cases. Every line and every cell as CSV: `agents_csv`."""
    moved = legacy_csv(request, "agents-csv")
    if moved:
        return moved
    request_refresh()
    query = {"difficulty": difficulty, "tag": tag or None, "harness": harness or None,
             "since": since, "sort": sort}
    lines_query = {**query, "cases_page": cases_page if cases_page != 1 else None,
                   "cases_page_size": cases_page_size if cases_page_size != CASES_PAGE_SIZE else None}
    columns_query = {**query, "page": page if page != 1 else None,
                     "page_size": page_size if page_size != PAGE_SIZE else None}

    def render():
        matrix = _matrix(query)
        columns, column_links = page_links(request, matrix.columns(), page=cases_page, page_size=cases_page_size,
                                           query=columns_query, names=("cases_page", "cases_page_size"),
                                           default_size=CASES_PAGE_SIZE)
        lines, links = page_links(request, matrix.lines, page=page, page_size=page_size, query=lines_query)
        return document(AgentsDocument, {
            "difficulty": matrix.difficulty, "tag": matrix.tag, "harness": matrix.harness, "sort": matrix.sort,
            "since": matrix.since,
            "cases": column_links["count"], "reference_cases": matrix.references, "columns_next": column_links["next"],
            "columns_previous": column_links["previous"],
            "columns": [{"case": version.case.slug, "version": version.version, "name": version.name,
                         "difficulty": version.difficulty} for version in columns],
            "as_of": matrix.as_of, "computing": matrix.computing, **links,
            "results": agent_lines(matrix, lines, columns),
        })

    return cached_document(request, {**lines_query, **columns_query}, [CATALOG, AGENTS_SNAPSHOT], render)


@router.get("/agents.csv", response={400: Problem, 404: Problem}, url_name="agents-csv",
            openapi_extra=csv_answer("every line of the matrix: the figures, then a solved, a trials and a share "
                                     "column per case"))
def agents_csv(request: HttpRequest,
               difficulty: Difficulty | None = None,
               tag: str | None = Query(None, max_length=100, pattern=ONE_LINE),
               harness: str | None = Query(None, max_length=100, pattern=ONE_LINE),
               since: DateParameter = Query(None, description=SINCE),
               sort: Sort = Query("solved")):
    """The agents matrix as CSV, every line."""
    request_refresh()
    query = {"difficulty": difficulty, "tag": tag or None, "harness": harness or None,
             "since": since, "sort": sort}
    return cached_document(request, query, [CATALOG, AGENTS_SNAPSHOT],
                           lambda: csv_response(*agents_table(_matrix(query))))
