"""The agents matrix (/agents/): agents × cases, every scored entry a trial, checked figure by
figure against a plain recomputation (scoring/tests/agents_oracle.py) over random sets of trials."""

from __future__ import annotations

import csv
import io
import re
from datetime import timedelta
from urllib.parse import quote, unquote

import pytest
from django.core.cache import cache
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.urls import resolve, reverse
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from catalog.models import CaseVersion
from engine.sandbox import ENGINE_DIGEST, WASMTIME_VERSION
from lib.stats import pareto_front, wilson_interval
from lib.urlparts import name_paths
from scoring.agents import Matrix, refresh
from scoring.boards.places import RANKED
from scoring.boards.rebuilding import rebuild
from scoring.models import AgentCell, AgentLine, Submission
from scoring.references import set_reference
from scoring.speedups import fast_shares, harmonic_mean
from scoring.tests import agents_oracle
from scoring.tests.agents_oracle import Trial
from tests.factories import make_cases, make_trials
from web.charts import cost_chart
from web.templatetags.site import rate

pytestmark = pytest.mark.django_db

MODELS = ("openai/gpt-5.1", "claude-x@2026-10", "my model")
HARNESSES = ("mini-swe", "")


@pytest.fixture
def cases(db) -> list[CaseVersion]:
    """Three cases: easy and medium tagged `alpha`, easy tagged `beta`."""
    return make_cases(2, prefix="alpha", tags=("alpha",)) + make_cases(1, prefix="beta", tags=("beta",))


def store(trials: list[Trial]) -> None:
    """The trials as scored submissions (each under a name of its own), their boards rebuilt."""
    versions = {version.pk: version for version in CaseVersion.objects.filter(pk__in={trial.case for trial in trials})}
    now = timezone.now()
    rows = []
    for index, trial in enumerate(trials):
        version = versions[trial.case]
        run = {key: value for key, value in (("model", trial.model), ("harness", trial.harness), ("cost_usd",
                                                                                                  trial.cost),
                                             ("input_tokens", trial.input_tokens),
                                             ("output_tokens", trial.output_tokens)) if value not in ("", None)}
        rows.append(Submission(
            version=version, variant=version.variants.first(), name=f"entry-{index}", source_kind="wasm", source=b"",
            wasmtime_version=WASMTIME_VERSION, engine_digest=ENGINE_DIGEST,
            status=Submission.State.SCORED if trial.scored else Submission.State.PENDING, passed=trial.passed,
            total_fuel=trial.fuel, passed_count=2 if trial.passed else 0, input_count=2, hidden=trial.hidden,
            excluded=trial.excluded, submitted_at=now - timedelta(seconds=index), run=run, model=trial.model,
            harness=trial.harness, cost_usd=trial.cost, input_tokens=trial.input_tokens,
            output_tokens=trial.output_tokens))
    Submission.objects.bulk_create(rows)
    rebuild(list(versions))


def trial_strategy(case_ids: list[int]):
    outcome = st.sampled_from(["passed", "passed", "over", "failed"])
    return st.builds(
        lambda agent, case, result, fuel, hidden, excluded, scored, cost, tokens: Trial(
            model=MODELS[agent // 2] if agent < 6 else "", harness=HARNESSES[agent % 2] if agent < 6 else "",
            case=case, passed=result == "passed", fuel=None if result == "failed" else fuel, hidden=hidden,
            excluded=excluded, scored=scored, cost=cost, input_tokens=tokens[0] if tokens else None,
            output_tokens=tokens[1] if tokens else None),
        agent=st.integers(0, 6), case=st.sampled_from(case_ids), result=outcome,
        fuel=st.integers(1, 5) .map(lambda n: n * 1000),  # few values: ties happen
        hidden=st.sampled_from([False] * 9 + [True]), excluded=st.sampled_from([False] * 9 + [True]),
        scored=st.sampled_from([True] * 9 + [False]),
        cost=st.one_of(st.none(), st.sampled_from([0.0, 0.25, 0.5, 1.5, 4.0])),
        tokens=st.one_of(st.none(), st.tuples(st.integers(0, 10**6), st.integers(0, 10**5))),
    )


def check_scope(stored_lines, expected: dict, cases: int, references: int) -> None:
    """Stored (or summed) lines against the oracle's, figure by figure, in the oracle's orders
    (the default first: cases solved), with the share of the scope's `cases` solved and the
    figures against its `references` cases with a reference entry."""
    assert [(line.model, line.harness) for line in stored_lines] == agents_oracle.by_solved(expected)
    assert [(line.model, line.harness) for line in sorted(stored_lines, key=lambda line: line.by_score)] == (
        agents_oracle.by_score(expected))
    for line in stored_lines:
        want = expected[(line.model, line.harness)]
        for figure in ("fast", "fast_at_k"):  # a document's shares are rounded to six places
            assert fast_shares(getattr(line, figure), references) == {
                key: pytest.approx(value, abs=1e-6) if value is not None else None
                for key, value in want[figure].items()}
        harmonic = harmonic_mean(line.inverse_speedups, line.reference_solved, references)
        assert harmonic == (pytest.approx(want["harmonic"], rel=1e-9) if want["harmonic"] is not None else None)
        assert line.reference_solved == want["speedup_cases"]
        assert line.speedup == (pytest.approx(want["speedup"], rel=1e-6) if want["speedup"] is not None else None)
        assert (line.cases_solved / cases, *wilson_interval(line.cases_solved, cases)) == pytest.approx(
            (want["solved_share"], *want["solved_interval"]), abs=1e-9)
        want = expected[(line.model, line.harness)]
        assert (line.cases_entered, line.cases_solved, line.trials, line.solved_trials) == (
            want["entered"], want["solved"], want["trials"], want["solved_trials"])
        assert line.score == pytest.approx(want["score"], rel=1e-9)
        assert line.pass_rate == pytest.approx(want["pass_rate"])
        assert (line.pass_low, line.pass_high) == pytest.approx(want["interval"], abs=1e-9)
        assert line.cost_trials == len(want["costs"])
        assert line.mean_cost_usd == (pytest.approx(want["mean_cost"]) if want["mean_cost"] is not None else None)
        assert line.input_token_trials == len(want["inputs"]) and (line.input_tokens or 0) == sum(want["inputs"])
        assert line.output_token_trials == len(want["outputs"]) and (line.output_tokens or 0) == sum(want["outputs"])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(data=st.data())
def test_every_figure_of_the_matrix_is_what_the_trials_say(cases, data):
    """Cells, lines in every scope (every case, a difficulty, a tag, both together), the order,
    the interval and the Pareto front, against the plain recomputation."""
    ids = [version.pk for version in cases]
    trials = data.draw(st.lists(trial_strategy(ids), min_size=0, max_size=40))
    with transaction.atomic():
        cache.clear()  # the rolled-back generations of an earlier example must not meet its cached sums
        store(trials)
        references = {}  # some cases get a reference entry: one of their ranked entries
        for version_id in ids:
            ranked = list(Submission.objects.filter(version_id=version_id, board_group=RANKED).order_by("pk"))
            if ranked and data.draw(st.booleans()):
                chosen = ranked[data.draw(st.integers(0, len(ranked) - 1))]
                set_reference(chosen)
                references[version_id] = chosen.total_fuel
        refresh()
        everything = agents_oracle.matrix(trials, set(ids), references)
        stored_cells = {(cell.agent.model, cell.agent.harness, cell.version_id): cell
                        for cell in AgentCell.objects.select_related("agent")}
        assert set(stored_cells) == set(everything["cells"])
        for key, cell in stored_cells.items():
            want = everything["cells"][key]
            assert (cell.trials, cell.solved, cell.best_fuel) == (want["trials"], want["solved"], want["best"])
            assert cell.share == (pytest.approx(want["share"]) if want["share"] is not None else None)
        def count(scope: set[int]) -> tuple[int, int]:
            return len(scope), len(scope & set(references))

        check_scope(list(AgentLine.objects.filter(scope="").select_related("agent").order_by("by_solved")),
                    everything["lines"], *count(set(ids)))
        easy = {pk for pk in ids if CaseVersion.objects.get(pk=pk).difficulty == "easy"}
        alpha = set(CaseVersion.objects.filter(pk__in=ids, tags__name="alpha").values_list("pk", flat=True))
        check_scope(list(AgentLine.objects.filter(scope="difficulty:easy").select_related("agent").order_by("by_solved")),
                    agents_oracle.matrix(trials, easy, references)["lines"], *count(easy))
        check_scope(list(AgentLine.objects.filter(scope="tag:alpha").select_related("agent").order_by("by_solved")),
                    agents_oracle.matrix(trials, alpha, references)["lines"], *count(alpha))
        both = Matrix({"difficulty": "easy", "tag": "alpha"})
        assert (both.case_count(), both.references) == count(easy & alpha)
        check_scope(list(both.lines), agents_oracle.matrix(trials, easy & alpha, references)["lines"],
                    *count(easy & alpha))
        document = Matrix({})
        assert document.references == len(references)
        chart = cost_chart(*Matrix({}).chart_rows(), per_page=50)
        fronted = {(point.model, point.harness) for point in chart.points if point.on_front} if chart else set()
        assert fronted == agents_oracle.front(everything["lines"])
        transaction.set_rollback(True)


def test_two_agents_with_the_same_score_and_cost_are_both_on_the_front_and_tie_by_score(cases):
    """0.1 + 0.2 is not 0.3 in floating point: an agent with shares 1/10 and 1/5 and one with 3/10
    score the same, and neither beats the other; the next order (cases solved) decides by score."""
    one, two, three = (version.pk for version in cases)
    trials = [Trial("claude-x@2026-10", "", one, True, 1000), Trial("claude-x@2026-10", "", two, True, 1000),
              Trial("claude-x@2026-10", "", three, True, 3000),  # each case's best; records no cost
              Trial("my model", "", one, True, 10000, cost=1.0), Trial("my model", "", two, True, 5000, cost=1.0),
              Trial("openai/gpt-5.1", "mini-swe", three, True, 10000, cost=1.0)]
    store(trials)
    refresh()
    lines = {line.agent.model: line for line in AgentLine.objects.filter(scope="").select_related("agent")}
    assert lines["my model"].score != lines["openai/gpt-5.1"].score  # as the database added them
    assert lines["my model"].on_front and lines["openai/gpt-5.1"].on_front
    assert agents_oracle.front(agents_oracle.matrix(trials, {one, two, three})["lines"]) == {
        ("my model", ""), ("openai/gpt-5.1", "mini-swe")}
    # Same score: by score, the one that solved more cases comes first.
    assert lines["my model"].by_score < lines["openai/gpt-5.1"].by_score


def test_an_agent_cheaper_by_less_than_a_billionth_of_a_dollar_is_still_the_cheaper(cases):
    """Scores tie to nine places; costs do not: a run may record $1e-12, and with the same score
    the agent that spent it beats one that spent $4e-10, and one that spent $0 beats them both."""
    one = cases[0].pk
    trials = [Trial("my model", "", one, True, 1000, cost=4e-10), Trial("openai/gpt-5.1", "", one, True, 1000,
                                                                           cost=1e-12),
              Trial("claude-x@2026-10", "", one, True, 2000, cost=0.0)]
    store(trials)
    refresh()
    lines = {line.agent.model: line for line in AgentLine.objects.filter(scope="").select_related("agent")}
    assert [model for model, _ in sorted(lines.items(), key=lambda item: item[1].by_cost)] == [
        "claude-x@2026-10", "openai/gpt-5.1", "my model"]
    assert {model for model, line in lines.items() if line.on_front} == {"claude-x@2026-10", "openai/gpt-5.1"}
    assert agents_oracle.front(agents_oracle.matrix(trials, {one})["lines"]) == {
        ("claude-x@2026-10", ""), ("openai/gpt-5.1", "")}


@given(successes=st.integers(0, 500), extra=st.integers(0, 500))
def test_the_interval_is_wilsons(successes, extra):
    """The 95% Wilson interval: the quadratic's roots, within [0, 1], around the observed rate."""
    trials = successes + extra
    low, high = wilson_interval(successes, trials)
    assert (low, high) == pytest.approx(agents_oracle.wilson(successes, trials), abs=1e-12)
    if trials:
        assert 0 <= low <= successes / trials <= high <= 1


@given(points=st.lists(st.tuples(st.sampled_from([0.0, 0.1, 0.5, 1.0, 2.0]), st.integers(0, 4)), max_size=12))
def test_the_front_is_every_point_no_other_beats_on_both(points):
    lines = {(str(index), ""): {"mean_cost": cost, "score": float(score)} for index, (cost, score) in enumerate(points)}
    found = pareto_front((key, line["mean_cost"], line["score"]) for key, line in lines.items())
    assert set(found) == agents_oracle.front(lines)
    assert [lines[key]["mean_cost"] for key in found] == sorted(lines[key]["mean_cost"] for key in found)


@pytest.fixture
def seeded(cases):
    """3 models × 2 harnesses × 3 cases, 3 trials each, with costs and tokens, and a submitter with no model."""
    agents = [(model, harness) for model in MODELS for harness in HARNESSES]
    made = make_trials(cases, agents, trials=3, seed=11)
    make_trials(cases[:1], [("", "")], trials=1, seed=12)  # an entry that names no model
    refresh()
    return made


def test_the_page_shows_each_agents_figures_and_cells(client, seeded, cases):
    trials = [Trial(row.model, row.harness, row.version_id, row.passed, row.total_fuel, cost=row.cost_usd,
                    input_tokens=row.input_tokens, output_tokens=row.output_tokens)
              for row in Submission.objects.all()]
    expected = agents_oracle.matrix(trials, {version.pk for version in cases})
    page = client.get("/agents/")
    assert page.status_code == 200
    html = page.content.decode()
    order = agents_oracle.by_solved(expected["lines"])
    lines = {(line.agent.model, line.agent.harness): line.agent_id
             for line in AgentLine.objects.filter(scope="").select_related("agent")}
    positions = [html.index(f'id="agent-{lines[model, harness]}"') for model, harness in order]
    assert positions == sorted(positions)  # the rows in the oracle's order: more cases solved first
    first = expected["lines"][order[0]]
    share, (low, high) = first["solved_share"], first["solved_interval"]
    assert f"{first['score']:.3f}" in html
    assert (f'<strong>{first["solved"]}/3</strong> <span class="cell-note">{rate(share)} · {rate(low)}–{rate(high)}'
            in html)  # the share of every case, with its interval
    assert "Trial pass rate" in html and "an agent that tried one case once and solved it has 100%" in html
    assert "Entries whose run record names no model are no agent's" in html
    document = client.get("/api/v1/agents/").json()
    assert document["count"] == 6 and document["cases"] == 3
    for row in document["results"]:
        want = expected["lines"][(row["model"], row["harness"])]
        assert row["trials"] == want["trials"] and row["score"] == pytest.approx(want["score"], abs=1e-6)
        assert (row["solved_share"], row["solved_share_low"], row["solved_share_high"]) == pytest.approx(
            (want["solved_share"], *want["solved_interval"]), abs=1e-6)
        assert row["mean_cost_usd"] == pytest.approx(want["mean_cost"], abs=1e-6)
        for cell in row["cells"]:
            version = next(version for version in cases if version.case.slug == cell["case"])
            assert cell["trials"] == expected["cells"][(row["model"], row["harness"], version.pk)]["trials"]
    download = client.get("/agents/", {"format": "csv"})
    rows = list(csv.reader(io.StringIO(b"".join(download.streaming_content).decode())))
    assert rows[0][:4] == ["rank", "model", "harness", "cases"] and len(rows) == 7
    assert [(row[1], row[2]) for row in rows[1:]] == order


def test_cells_link_to_the_models_entries_and_filters_narrow_the_matrix(client, seeded, cases):
    html = client.get("/agents/", {"harness": "mini-swe", "sort": "cost"}).content.decode()
    assert "/cases/alpha-00000/leaderboard/?version=v1&amp;all=1&amp;model=openai%2Fgpt-5.1" in html
    assert html.count('<tr id="agent-') == 3  # the three models under that harness
    tagged = client.get("/api/v1/agents/", {"tag": "beta", "difficulty": "easy"}).json()
    assert tagged["cases"] == 1 and all(len(row["cells"]) == 1 for row in tagged["results"])
    assert client.get("/agents/", {"sort": "cheapest"}).status_code == 400
    assert client.get("/api/v1/agents/", {"tag": "no-such-tag"}).status_code == 404


def test_the_page_is_a_slice_of_stored_rows_whatever_the_number_of_agents(client, cases, monkeypatch):
    """The same queries for 3 agents as for 40: whether the matrix is behind (the snapshot and the
    generations), a slice of lines, a slice of columns and its count, the cells where they cross,
    the chart's points (the front and the best, by their stored flags and places) and how many
    recorded a cost, and the filter's lists."""
    make_trials(cases, [(f"model-{index}", "h") for index in range(3)], trials=1, seed=1)
    refresh()
    monkeypatch.setattr("scoring.snapshots._last_check", {})
    with CaptureQueriesContext(connection) as few:
        assert client.get("/agents/").status_code == 200
    make_trials(cases, [(f"model-{index}", "h") for index in range(3, 40)], trials=1, seed=2)
    refresh()
    monkeypatch.setattr("scoring.snapshots._last_check", {})
    with CaptureQueriesContext(connection) as many:
        assert client.get("/agents/").status_code == 200
    assert len(many.captured_queries) == len(few.captured_queries) == 11, [query["sql"] for query in
    many.captured_queries]


@pytest.fixture(scope="module")
def urls_loaded():
    """The URL patterns loaded and compiled before the first example: that is done once per
    process, and on a busy machine it alone can take longer than Hypothesis allows an example."""
    resolve(reverse("agent", args=["a"]))


@given(name=st.text(st.characters(blacklist_categories=("Cc", "Cs", "Cf", "Zl", "Zp", "Co", "Cn")), min_size=1,
                    max_size=100))
@settings(max_examples=300)
def test_every_model_name_round_trips_through_its_url(urls_loaded, name):
    path = reverse("agent", args=[name])
    assert name_paths("agent")(name) == path  # the matrix's links: one reverse() for a page of them
    assert path.startswith("/agents/") and path.endswith("/")
    assert "//" not in path and "/./" not in path and "/../" not in path  # nothing a browser or nginx rewrites
    match = resolve(unquote(path))  # as the server hands the path over: decoded once
    assert match.url_name == "agent" and match.kwargs["model"] == name


@pytest.mark.parametrize("name", ["openai/gpt-5.1", "claude-x@2026-10", "my model", "a//b", "/lead", "trail/", "..",
                                  ".", "~tilde", "100%", "what?#frag", "a/./b"])
def test_a_model_page_answers_at_its_url_and_another_spelling_is_sent_there(client, cases, name):
    make_trials(cases[:1], [(name, "h")], trials=1, seed=3)
    refresh()
    url = reverse("agent", args=[name])
    page = client.get(url)
    assert page.status_code == 200 and page.context["model"] == name
    if not url.startswith("/agents/~"):  # the escaped spelling of a name that goes as it is: one URL per page
        escaped = "/agents/" + quote("~" + quote(name, safe=""), safe="~") + "/"
        moved = client.get(escaped)
        assert moved.status_code == 301 and moved["Location"] == url
    assert client.get(reverse("agent", args=[name + " nobody"])).status_code == 404


def test_the_refresh_command_says_what_it_computed(seeded):
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("refresh_agents", stdout=out)
    assert "agents: 6 agent(s) over 3 case(s)" in out.getvalue()


def test_a_score_makes_the_matrix_behind_and_a_page_view_refreshes_it(client, cases, settings):
    """The matrix is a snapshot: a page that finds it behind the scores asks for a refresh (run
    right there with the immediate backend) once it is older than the interval."""
    settings.STANDINGS_REFRESH_SECONDS = 0
    assert client.get("/agents/").status_code == 200  # the first view computes it
    make_trials(cases[:1], [("late/model", "")], trials=1, seed=5)
    from scoring.boards.updates import announce_versions

    announce_versions({cases[0].pk})  # as a score on a latest version does
    assert "late/model" in client.get("/agents/").content.decode()


def test_a_harness_filter_reads_as_the_page_cache_keys_it(client, seeded, settings):
    """`?harness=%20` is the bare page to the cache (the key strips it): it must be the bare
    page to the filter too, or one request would store an empty matrix for everyone."""
    settings.PAGE_CACHE_SECONDS = 300
    assert client.get("/agents/", {"harness": " "}).content.decode().count('<tr id="agent-') == 6
    assert client.get("/agents/").content.decode().count('<tr id="agent-') == 6
    assert client.get("/agents/", {"harness": " mini-swe "}).content.decode().count('<tr id="agent-') == 3
    assert client.get("/agents/", {"harness": "mini-swe"}).content.decode().count('<tr id="agent-') == 3


def test_a_harness_no_agent_ran_under_names_nothing_and_is_never_stored(client, seeded, settings):
    from django.core.cache import cache

    settings.PAGE_CACHE_SECONDS = 300
    cache.clear()
    page = client.get("/agents/", {"harness": "no-such-harness"})
    assert page.status_code == 400 and "no agent ran under that harness" in page.content.decode()
    document = client.get("/api/v1/agents/", {"harness": "no-such-harness"})
    assert document.status_code == 404 and document.json()["detail"] == "no agent ran under that harness"
    assert not [key for key in cache._cache if ":page:" in key]  # neither answer took a place in the cache


@pytest.mark.parametrize("path", ["/agents/%00/", "/agents/m%00/", "/agents/" + "x" * 101 + "/", "/agents/~%2500/"])
def test_a_path_no_model_name_can_be_is_not_found(client, cases, path):
    assert client.get(path).status_code == 404


def test_a_reference_adds_fast_p_and_the_speedup_and_cells_say_what_they_show(client, seeded, cases):
    html = client.get("/agents/").content.decode()
    assert "Speedup vs. the reference" not in html  # no case has a reference yet
    for label, shown in re.findall(r'aria-label="([^"]*)">(\d+/\d+)</a>', html):
        assert label.startswith(f"{shown}: ")  # the accessible name begins with the visible text
    reference = Submission.objects.filter(version=cases[0], board_group=RANKED).order_by("total_fuel", "pk").last()
    set_reference(reference)
    refresh()
    document = client.get("/api/v1/agents/").json()
    assert document["reference_cases"] == 1
    agent = next(row for row in document["results"] if (row["model"], row["harness"]) == (reference.model,
                                                                                           reference.harness))
    assert agent["speedup_cases"] == 1 and agent["speedup"] >= 1.0 and agent["fast"]["1"] > 0
    assert agent["harmonic_speedup"] >= 1.0 and agent["fast_at_k"]["k"] == 3
    html = client.get("/agents/", {"p": "5"}).content.decode()
    assert "Speedup vs. the reference" in html and "Trials as fast as the reference" in html and "at ≥5×" in html
    assert client.get("/agents/", {"p": "3"}).status_code == 400


def test_fast_p_over_trials_at_k_and_the_harmonic_score_on_a_matrix_worked_by_hand(db):
    """Four cases, three with a reference of 1,000 fuel (A, B, C), one without (D); three agents
    with uneven trials and untried cases. Every figure below is worked out by hand."""
    a, b, c, d = make_cases(4, prefix="hand")
    x, y, z = ("x-model", "h"), ("y-model", "h"), ("z-model", "h")

    def tried(agent, case, *fuels):  # None: a trial that failed
        return [Trial(agent[0], agent[1], case.pk, fuel is not None, fuel) for fuel in fuels]

    store([*tried(x, a, 500, 2000, None), *tried(x, b, 1000),
           *tried(y, a, 250), *tried(y, b, None, None), *tried(y, c, 100, 100, 400, None),
           *tried(z, d, 10),
           *(Trial("", "", case.pk, True, 1000) for case in (a, b, c))])  # the references: no agent's
    for case in (a, b, c):
        set_reference(Submission.objects.get(version=case, model="", total_fuel=1000))
    refresh()
    lines = {line.agent.model: line for line in AgentLine.objects.filter(scope="").select_related("agent")}

    def fast(model, p, at_k=False):  # (a document's shares are rounded to six places)
        return pytest.approx(fast_shares(getattr(lines[model], "fast_at_k" if at_k else "fast"), 3)[f"{p:g}"],
                             abs=1e-6)

    # fast_2 over trials: x solved A at ≤ 500 fuel in 1 of 3 trials, B in none, C untried.
    assert fast("x-model", 2) == (1 / 3 + 0 + 0) / 3
    assert fast("y-model", 2) == (1 + 0 + 3 / 4) / 3
    assert fast("x-model", 1) == (1 / 3 + 1 + 0) / 3
    assert fast("x-model", 0.5) == (2 / 3 + 1 + 0) / 3  # 2,000 fuel is a speedup of 0.5
    assert fast("z-model", 2) == 0.0  # it tried only the case without a reference
    # fast_2@3: x on A: 3 trials, 1 good: 1 − C(2,3)/C(3,3) = 1; on B, 1 trial: none good → 0.
    assert fast("x-model", 2, at_k=True) == (1 + 0 + 0) / 3
    # y: A, 1 trial, good → 1; B, 2 trials, none → 0; C, 4 trials, 3 good: 1 − C(1,3)/C(4,3) = 1.
    assert fast("y-model", 2, at_k=True) == (1 + 0 + 1) / 3
    # y on C at p = 5 (≤ 200 fuel): 2 of 4 good: 1 − C(2,3)/C(4,3) = 1; at p = 10 (≤ 100): the same.
    assert fast("y-model", 10, at_k=True) == (0 + 0 + 1) / 3
    assert fast("y-model", 10) == (0 + 0 + 2 / 4) / 3

    def harmonic(model):
        line = lines[model]
        return harmonic_mean(line.inverse_speedups, line.reference_solved, 3)

    assert harmonic("x-model") == pytest.approx(3 / (1 / 2 + 1 + 1))  # A at 2×, B at 1×, C untried: 1×
    assert harmonic("y-model") == pytest.approx(3 / (1 / 4 + 1 + 1 / 10))  # B unsolved: 1×
    assert harmonic("z-model") == pytest.approx(1.0)
    assert lines["x-model"].speedup == pytest.approx(2 ** 0.5)  # the geometric mean over the solved: A, B


def test_since_keeps_the_cases_first_published_on_or_after_a_date_and_cases_show_what_they_proved(client, db):
    from datetime import datetime
    from datetime import timezone as tz

    from catalog.models import Case
    from scoring.standings.computing import refresh as refresh_standings

    old, new = make_cases(2, prefix="dated")
    Case.objects.filter(pk=old.case_id).update(created_at=datetime(2026, 1, 10, tzinfo=tz.utc))
    Case.objects.filter(pk=new.case_id).update(created_at=datetime(2026, 6, 1, tzinfo=tz.utc))
    store([Trial("m", "h", old.pk, True, 1000), Trial("m", "h", old.pk, False, None), Trial("m", "h", new.pk, False,
                                                                                         None)])
    refresh()
    refresh_standings()
    everything = client.get("/api/v1/agents/").json()
    recent = client.get("/api/v1/agents/", {"since": "2026-03-01"}).json()
    assert (everything["cases"], recent["cases"], recent["since"]) == (2, 1, "2026-03-01")
    assert [(row["cases_entered"], row["cases_solved"]) for row in recent["results"]] == [(1, 0)]
    assert client.get("/api/v1/standings/", {"since": "2026-03-01"}).json()["cases"] == 1
    assert client.get("/api/v1/standings/", {"since": "2026-01-10"}).json()["cases"] == 2  # on the day counts
    page = client.get("/agents/", {"since": "2026-03-01"}).content.decode()
    assert "first published since 2026-03-01" in page
    assert client.get("/standings/", {"since": "2026-03-01"}).status_code == 200
    for path in ("/api/v1/agents/", "/api/v1/standings/", "/agents/", "/standings/"):
        assert client.get(path, {"since": "March"}).status_code == 400, path
    case = client.get(f"/api/v1/cases/{old.case.slug}/").json()
    assert case["first_published_at"].startswith("2026-01-10")
    assert {key: case["observed"][key] for key in ("agents", "trials", "solved_trials", "solved_share")} == {
        "agents": 1, "trials": 2, "solved_trials": 1, "solved_share": 0.5}
    assert case["observed"]["speedups"] is None  # no reference yet
    page = client.get(f"/cases/{old.case.slug}/").content.decode()
    assert "50% of the 2 trials of 1 agent solved it" in page


def test_the_cost_chart_parts_close_scores_and_keeps_its_labels_off_the_line_and_the_ticks():
    from web.charts import COST_FONT, COST_LEFT, _crosses

    rows = [(index, f"model-{index}", "", cost, score, index, on_front)
            for index, (cost, score, on_front) in enumerate([(0.5, 1.0, True), (1.0, 1.01, True), (2.0, 1.029, True),
                                                              (4.0, 1.02, False), (0.8, 1.005, False)])]
    chart = cost_chart(rows, len(rows), per_page=50)
    assert chart.score_from > 0  # the axis starts near the scores, and the page says so
    ys = sorted(point.y for point in chart.points)
    assert min(later - earlier for earlier, later in zip(ys, ys[1:])) > 5  # no two on one line
    line = [tuple(map(float, pair.split(","))) for pair in chart.front.split()]
    for point in chart.points:
        if not point.label:
            continue
        width = len(point.label) * COST_FONT * 0.58
        left = {"start": point.label_x, "end": point.label_x - width, "middle": point.label_x - width / 2}[point.anchor]
        box = (left, point.label_y - 10, left + width, point.label_y + 2)
        assert left >= COST_LEFT, point  # clear of the score axis' tick labels
        assert not any(_crosses(box, start, end) for start, end in zip(line, line[1:])), point


def test_a_refresh_committed_between_a_filtered_matrixs_reads_never_fails_it(client, seeded, cases, monkeypatch):
    """A filter that is not precomputed sums the stored cells in three reads: a refresh that lands
    between them, with an agent new since the last, is read again, never a missing name."""
    from scoring.agents import computing

    make_trials(cases[:1], [("new/model", "")], trials=1, seed=13)
    sums, refreshed = computing.line_sums, []

    def a_refresh_lands_first(cells, *args, **kwargs):
        if not refreshed:
            refreshed.append(True)
            refresh()  # as another worker's, committed just before this read
        return sums(cells, *args, **kwargs)

    monkeypatch.setattr(computing, "line_sums", a_refresh_lands_first)
    response = client.get("/api/v1/agents/?since=2000-01-01")
    assert response.status_code == 200 and refreshed
    assert "new/model" in {line["model"] for line in response.json()["results"]}
