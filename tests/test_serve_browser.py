"""The page of ``wargym serve --http`` in a real headless browser (issue 17): Debian's chromium
driven by Playwright; whole short games played by clicking legal actions, the board on screen,
the save download read by ``env.load``.  CI installs chromium (``.ci/run``); without it this fails."""
from __future__ import annotations

import io
import os
import tempfile

import numpy as np
import pytest

from wargym.serve.client import start_http, warm_up
from wargym.serve.protocol import state_hash

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
WAIT_MS = 300_000  # bounded, but generous: a loaded machine may still be loading kernels
WARM = ("talon_v0", "battle_force_v1", "planetoids_v0")


@pytest.fixture(scope="module")
def browser():
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: the browser test needs Debian's chromium (apt-get install -y chromium; "
                    ".ci/run installs it)")
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module", autouse=True)
def kernels():
    """The games' kernels compiled here first: the server subprocesses then load them from the cache."""
    warm_up(WARM)


@pytest.fixture(scope="module")
def base():
    proc, url = start_http()
    yield url
    proc.terminate()
    proc.wait(timeout=30)


def play_by_clicking(page, max_clicks=500) -> int:
    """Click the first legal action whenever it is the person's turn, until the game is over."""
    clicks = 0
    while clicks < max_clicks:
        page.wait_for_selector("body[data-phase=your-turn], body[data-phase=over]", timeout=WAIT_MS)
        if page.get_attribute("body", "data-phase") == "over":
            return clicks
        page.locator("#legal button.action").first.click()
        clicks += 1
    raise AssertionError("the game did not end")


def board_shown(page) -> np.ndarray:
    """The board as it is on screen, once the picture of the last position has loaded."""
    from PIL import Image
    seq = page.evaluate("() => String(S.seq)")
    page.wait_for_function("seq => document.getElementById('board').dataset.seq === seq", arg=seq, timeout=WAIT_MS)
    return np.asarray(Image.open(io.BytesIO(page.locator("#board").screenshot())).convert("RGB"))


def test_whole_short_talon_game_by_clicking(browser, base):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(base + "/")
    page.wait_for_selector("body[data-phase=idle]", timeout=WAIT_MS)
    page.select_option("#game", "talon_v0")
    page.fill("#options", '{"max_decisions": 14}')
    page.fill("#seed", "7")
    page.click("#start")
    clicks = play_by_clicking(page)
    assert clicks >= 3
    log = page.locator("#log li").all_inner_texts()
    assert len(log) == 14 and sum("you:" in x for x in log) == clicks
    assert any("scripted:" in x for x in log)
    assert "cut off by max_decisions" in page.inner_text("#result")
    shot = board_shown(page)
    assert shot.shape[0] > 400 and shot.shape[1] > 400
    # the board, not a blank box: many colours, and Talon's dark starfield most of all
    assert len(np.unique(shot.reshape(-1, 3) // 8, axis=0)) > 50
    assert shot.mean() < 140
    page.screenshot(path=os.path.join(tempfile.gettempdir(), "wargym-serve-talon.png"))
    assert not errors


def test_battle_force_three_seats_and_the_save_download(browser, base):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(base + "/")
    page.wait_for_selector("body[data-phase=idle]", timeout=WAIT_MS)
    page.select_option("#game", "battle_force_v1")
    assert page.is_visible("#players") and page.is_visible("#solitaire")
    page.fill("#players", "3")
    page.dispatch_event("#players", "change")
    assert page.locator("#seat option").count() == 3
    page.select_option("#bot", "random")
    page.fill("#options", '{"max_decisions": 30}')
    page.fill("#seed", "3")
    page.click("#start")
    play_by_clicking(page)
    log = page.locator("#log li").all_inner_texts()
    assert len(log) == 30
    assert {x.split(",")[0] for x in log if "random:" in x} == {"player 1", "player 2"}
    board_shown(page)
    href = page.get_attribute("#download", "href")
    saved = page.request.get(base + href)
    assert saved.ok
    from wargym.envs import battle_force_v1
    env = battle_force_v1.raw_env(players=3, max_decisions=30)
    with tempfile.NamedTemporaryFile(suffix=".wargym") as f:
        f.write(saved.body())
        f.flush()
        env.load(f.name)
    match = href.split("/")[3]
    state = page.request.post(base + "/v1/rpc", data={"v": 1, "type": "state", "match": match}).json()
    assert state["over"] and state_hash(env.core) == state["state_hash"]


def board_map_shown(page) -> dict:
    """The page's map of clickable hexes for the position on screen (loaded after the picture's request)."""
    page.wait_for_selector("body[data-phase=your-turn]", timeout=WAIT_MS)
    seq = page.evaluate("() => String(S.seq)")
    page.wait_for_function("seq => document.getElementById('board').dataset.mapSeq === seq && "
                           "document.getElementById('board').dataset.seq === seq", arg=seq, timeout=WAIT_MS)
    return page.evaluate("() => S.boardMap")


def click_hex(page, hex_):
    """A real mouse click on the hex's centre as the picture is shown (scaled to the page's width)."""
    scale = page.evaluate("() => { const b = document.getElementById('board'); "
                          "return b.getBoundingClientRect().width / b.naturalWidth; }")
    page.locator("#board").click(position={"x": hex_["x"] * scale, "y": hex_["y"] * scale})


def listed_actions(page) -> list[int]:
    return [int(x) for x in page.eval_on_selector_all("#legal button.action", "bs => bs.map(b => b.dataset.action)")]


def test_a_click_on_a_talon_hex_filters_the_list_or_plays_the_move(browser, base):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(base + "/")
    page.wait_for_selector("body[data-phase=idle]", timeout=WAIT_MS)
    page.select_option("#game", "talon_v0")
    page.fill("#seed", "1")
    page.click("#start")
    # the power phase first: a ship's hex names its AP spending (several actions): the list narrows to them
    board = board_map_shown(page)
    assert board["clickable"]
    everything = listed_actions(page)
    ship = max(board["hexes"], key=lambda h: len(h["actions"]))
    assert len(ship["actions"]) > 1
    click_hex(page, ship)
    assert sorted(listed_actions(page)) == sorted(ship["actions"])
    assert page.is_visible("#picked")
    page.click("#unpick")
    assert listed_actions(page) == everything
    # on through the list until a hex names one move: a click there plays it
    for _ in range(60):
        board = board_map_shown(page)
        single = [h for h in board["hexes"] if len(h["actions"]) == 1]
        if single:
            break
        page.locator("#legal button.action").first.click()
    else:
        raise AssertionError("no hex named a single move")
    target = single[0]
    name = next(a["name"] for a in page.evaluate("() => S.legal") if a["action"] == target["actions"][0])
    moves_before = sum("you:" in x for x in page.locator("#log li").all_inner_texts())
    click_hex(page, target)
    page.wait_for_function("n => [...document.querySelectorAll('#log li.client')].length > n", arg=moves_before,
                           timeout=WAIT_MS)
    mine = [x for x in page.locator("#log li").all_inner_texts() if "you:" in x]
    assert mine[-1].endswith("you: " + name)
    assert not errors


def test_a_click_on_a_planetoids_hex_places_the_base(browser, base):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(base + "/")
    page.wait_for_selector("body[data-phase=idle]", timeout=WAIT_MS)
    page.select_option("#game", "planetoids_v0")
    page.fill("#seed", "7")
    page.click("#start")
    board = board_map_shown(page)
    # setup (Planetoids setup rules): each hex next to the home planet names one action, placing a base there
    assert board["hexes"] and all(len(h["actions"]) == 1 for h in board["hexes"])
    target = board["hexes"][len(board["hexes"]) // 2]
    click_hex(page, target)
    page.wait_for_function("() => document.querySelectorAll('#log li.client').length === 1", timeout=WAIT_MS)
    assert f"hex ({target['row']}, {target['col']})" in page.locator("#log li.client").first.inner_text()


def click_box(page, box):
    """A real mouse click in the middle of a box of the picture (Battle Force's cards)."""
    click_hex(page, {"x": (box["x0"] + box["x1"]) / 2, "y": (box["y0"] + box["y1"]) / 2})


def places(board) -> list[dict]:
    return board["hexes"] + board["circles"] + board["rects"]


def spots_drawn(page, board) -> list[dict]:
    """The highlighted places over the picture (the SVG over the board) for the position on screen."""
    seq = page.evaluate("() => String(S.seq)")
    page.wait_for_function("seq => document.getElementById('spots').dataset.seq === seq", arg=seq, timeout=WAIT_MS)
    return page.eval_on_selector_all("#spots .spot", "els => els.map(e => ({tag: e.tagName, "
                                     "actions: e.dataset.actions, box: e.getBoundingClientRect().toJSON()}))")


def test_a_click_on_a_battle_force_card_plays_it(browser, base):
    """Battle Force's board: the cards in the hand, the ship cards, the damage spaces are clickable;
    a box that names one move plays it."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(base + "/")
    page.wait_for_selector("body[data-phase=idle]", timeout=WAIT_MS)
    page.select_option("#game", "battle_force_v1")
    page.select_option("#bot", "random")
    page.fill("#seed", "2")
    page.click("#start")
    clicked = set()
    for _ in range(80):
        board = board_map_shown(page)
        single = [b for b in board["rects"] if len(b["actions"]) == 1 and b["what"] not in clicked]
        if not single:
            page.locator("#legal button.action").first.click()
            continue
        box = single[0]
        name = next(a["name"] for a in page.evaluate("() => S.legal") if a["action"] == box["actions"][0])
        moves_before = page.locator("#log li.client").count()
        click_box(page, box)
        page.wait_for_function("n => document.querySelectorAll('#log li.client').length > n", arg=moves_before,
                               timeout=WAIT_MS)
        mine = page.locator("#log li.client").all_inner_texts()
        assert mine[moves_before].endswith("you: " + name)
        clicked.add(box["what"])
        if {"card", "ship"} <= clicked:
            break
    assert {"card", "ship"} <= clicked, clicked
    page.screenshot(path=os.path.join(tempfile.gettempdir(), "wargym-serve-battle-force.png"))
    assert not errors


def test_the_clickable_places_are_highlighted(browser, base):
    """Every place of the board map is outlined over the picture, where the picture shows it: a
    screenshot with the highlights differs from one without them inside those places only."""
    from PIL import Image
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(base + "/")
    page.wait_for_selector("body[data-phase=idle]", timeout=WAIT_MS)
    page.select_option("#game", "talon_v0")
    page.fill("#seed", "1")
    page.click("#start")
    board = board_map_shown(page)
    drawn = spots_drawn(page, board)
    assert len(drawn) == len(places(board)) > 0
    assert sorted(d["actions"] for d in drawn) == sorted(" ".join(map(str, p["actions"])) for p in places(board))
    # each hex outline is centred on its hex as the page shows the picture
    img = page.evaluate("() => { const b = document.getElementById('board').getBoundingClientRect(); "
                        "return {x: b.x, y: b.y, k: b.width / document.getElementById('board').naturalWidth}; }")
    for d, h in zip(drawn, board["hexes"]):
        cx, cy = d["box"]["x"] + d["box"]["width"] / 2, d["box"]["y"] + d["box"]["height"] / 2
        assert abs(cx - (img["x"] + h["x"] * img["k"])) < 1.5 and abs(cy - (img["y"] + h["y"] * img["k"])) < 1.5

    def shot():
        return np.asarray(Image.open(io.BytesIO(page.locator("#board-wrap").screenshot())).convert("RGB")).astype(int)
    shown = shot()
    page.evaluate("() => { document.getElementById('spots').style.visibility = 'hidden'; }")
    hidden = shot()
    page.evaluate("() => { document.getElementById('spots').style.visibility = ''; }")
    changed = np.abs(shown - hidden).sum(axis=2) > 30
    inside = np.zeros_like(changed)
    wrap = page.locator("#board-wrap").bounding_box()
    for d in drawn:
        b = d["box"]
        x0, y0 = int(b["x"] - wrap["x"]) - 2, int(b["y"] - wrap["y"]) - 2
        inside[max(0, y0):int(y0 + b["height"]) + 5, max(0, x0):int(x0 + b["width"]) + 5] = True
        assert changed[max(0, y0):int(y0 + b["height"]) + 5, max(0, x0):int(x0 + b["width"]) + 5].sum() > 20
    assert changed.sum() > 0 and not (changed & ~inside).any()
    # the highlights follow the position: after a move, those of the next decision
    seq = page.evaluate("() => S.seq")
    page.locator("#legal button.action").first.click()
    page.wait_for_function("seq => S.seq > seq && document.body.dataset.phase === 'your-turn'", arg=seq,
                           timeout=WAIT_MS)
    board = board_map_shown(page)
    assert sorted(d["actions"] for d in spots_drawn(page, board)) == \
        sorted(" ".join(map(str, p["actions"])) for p in places(board))
    page.screenshot(path=os.path.join(tempfile.gettempdir(), "wargym-serve-highlights.png"))
