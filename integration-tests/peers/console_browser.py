"""Drives Blindfold's web console in Debian's headless Chromium (Selenium with the driver's path
given: nothing is downloaded) while a coordinator delegates over A2A through the same Blindfold.

Usage: console_browser.py --base http://127.0.0.1:PORT --operator-token T --adapter-token T
                          --site http://127.0.0.1:SITE --shots DIR [--chromium P] [--driver P]

Two scripted agents sit behind Blindfold: one applies configuration ("Applies"), one reviews
it ("Reviews"). The script logs in (the adapter token is refused first); a write delegated to
the first agent is held for review and must appear in the open list without a reload; it is
approved in the page and the held send released by polling. The reviewer then refutes the next
change of that file; the next write is held, its page must show the refuting answer and the
diff against the first approval; it is approved. A third write is rejected with a note and its
poll must end REJECTED. Requests without the cookie, from another origin, without the CSRF
token, and a cross-site form post must change nothing. The trajectory page must show the held
rows in red. A screenshot of every page goes to DIR. Prints one JSON object: the review ids,
the held task ids and contexts, the polled states."""

import argparse
import base64
import json
import sys
import time
import uuid

import httpx
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

p = argparse.ArgumentParser()
p.add_argument("--base", required=True)
p.add_argument("--operator-token", required=True)
p.add_argument("--adapter-token", required=True)
p.add_argument("--site", required=True)
p.add_argument("--shots", required=True)
p.add_argument("--chromium", default="/usr/bin/chromium")
p.add_argument("--driver", default="/usr/bin/chromedriver")
a = p.parse_args()

FIRST = "debug=false\nauth=on\nport=8080\nworkers=4\n"
SECOND = "debug=true\nauth=off\nport=8080\nworkers=4\n"
REFUSAL_WORDS = "turns off authentication"
out = {"shots": []}


def check(cond, what):
    if not cond:
        raise AssertionError(what)


# ---- A2A, as the coordinator ----------------------------------------------------------------

http = httpx.Client(base_url=a.base, timeout=30)


def rpc(alias, method, params):
    body = {"jsonrpc": "2.0", "id": str(uuid.uuid4()), "method": method, "params": params}
    r = http.post(f"/a2a/{alias}", json=body, headers={"A2A-Version": "1.0"})
    return r.json()


def alias_of(keyword):
    for agent in http.get("/a2a").json()["agents"]:
        card = http.get(f"/a2a/{agent['alias']}/.well-known/agent-card.json").json()
        if keyword in card.get("description", ""):
            return agent["alias"]
    raise AssertionError(f"no agent card mentions {keyword!r}")


def send(alias, ctx, text, action=None):
    parts = [{"text": text}]
    if action:
        parts.append({"data": {"blindfold/action": action}})
    message = {"messageId": str(uuid.uuid4()), "contextId": ctx, "role": "ROLE_USER", "parts": parts}
    return rpc(alias, "SendMessage", {"message": message})


def write(alias, ctx, path, content):
    answer = send(alias, ctx, f"apply the config at {path}", {"tool": "write_file", "args": {"path": path, "content": content}})
    task = answer["result"]["task"]
    check(task["status"]["state"] == "TASK_STATE_AUTH_REQUIRED", f"not held: {answer}")
    grant = next(p["data"]["needed_grant"] for p in task["status"]["message"]["parts"] if "data" in p)
    return task["id"], grant["review_id"]


def poll(alias, task_id):
    return rpc(alias, "GetTask", {"id": task_id})["result"]


# ---- the browser ----------------------------------------------------------------------------

options = webdriver.ChromeOptions()
options.binary_location = a.chromium
for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--disable-dev-shm-usage", "--window-size=1360,900", "--hide-scrollbars",
             f"--user-data-dir={a.shots}/.profile"]:
    options.add_argument(flag)
driver = webdriver.Chrome(service=Service(executable_path=a.driver), options=options)
wait = WebDriverWait(driver, 20)


def shot(name):
    """The whole page (not only the window), through the DevTools protocol."""
    path = f"{a.shots}/{name}.png"
    time.sleep(0.4)
    size = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
    clip = {"x": 0, "y": 0, "width": size["width"], "height": min(max(size["height"], 600), 8000), "scale": 1}
    data = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True, "clip": clip})
    with open(path, "wb") as f:
        f.write(base64.b64decode(data["data"]))
    out["shots"].append(path)


def text_of(css):
    return driver.find_element(By.CSS_SELECTOR, css).text


def review_row(rv):
    return wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, f'tr[data-review="{rv}"]')))


def gone(rv):
    wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, f'tr[data-review="{rv}"]'))


def approve_in_page(rv):
    driver.find_element(By.CSS_SELECTOR, f'tr[data-review="{rv}"] a').click()
    wait.until(EC.text_to_be_present_in_element((By.ID, "review-status"), "pending"))


def raw(method, path, headers=None, body=None):
    """A request outside the page (urllib-style), with exactly the headers given."""
    return httpx.request(method, a.base + path, headers=headers or {}, content=body, timeout=10)


try:
    planner, reviewer = alias_of("Applies"), alias_of("Reviews")
    out["aliases"] = {"planner": planner, "reviewer": reviewer}

    # Log in: the adapter token is refused, the operator token opens the console.
    driver.get(a.base + "/console/")
    wait.until(EC.visibility_of_element_located((By.ID, "login-token")))
    shot("01-login")
    driver.find_element(By.ID, "login-token").send_keys(a.adapter_token)
    driver.find_element(By.ID, "login-submit").click()
    wait.until(EC.text_to_be_present_in_element((By.ID, "login-error"), "adapter token"))
    driver.find_element(By.ID, "login-token").clear()
    driver.find_element(By.ID, "login-token").send_keys(a.operator_token)
    driver.find_element(By.ID, "login-submit").click()
    wait.until(EC.visibility_of_element_located((By.ID, "review-list")))
    wait.until(EC.visibility_of_element_located((By.ID, "live")))
    cookie = next(c for c in driver.get_cookies() if c["name"] == "blindfold_console")
    check(cookie["httpOnly"] and cookie.get("sameSite") == "Strict", f"cookie flags: {cookie}")
    driver.execute_script("window.__loadedOnce = 'yes'")

    # A held delegation appears in the open list without a reload.
    task1, rv1 = write(planner, "ctx-first", "/srv/app.conf", FIRST)
    review_row(rv1)
    check(driver.execute_script("return window.__loadedOnce") == "yes", "the page reloaded")
    check("/srv/app.conf" in text_of(f'tr[data-review="{rv1}"]'), "the row names the target")
    shot("02-reviews-live")
    approve_in_page(rv1)
    check(FIRST.strip() in text_of("#artifact"), "the held bytes are shown")
    driver.find_element(By.ID, "approve").click()
    wait.until(EC.visibility_of_element_located((By.ID, "review-list")))
    gone(rv1)
    first = poll(planner, task1)
    check(first["status"]["state"] == "TASK_STATE_COMPLETED", f"first release: {first}")
    out["first"] = {"review": rv1, "task": task1, "context": first["contextId"], "state": first["status"]["state"]}

    # The reviewer refutes the next change; the next write is held with that refutation.
    answer = send(reviewer, "ctx-review", "Please review the next change to /srv/app.conf before it runs.")
    check(answer["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED", f"review answer: {answer}")
    task2, rv2 = write(planner, "ctx-second", "/srv/app.conf", SECOND)
    review_row(rv2)
    approve_in_page(rv2)
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "#disputes .refuting-text")))
    refuting = text_of("#disputes")
    check(REFUSAL_WORDS in refuting and reviewer in refuting, f"the refuting answer: {refuting}")
    deleted = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#diff .delete")]
    inserted = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#diff .insert")]
    check(any("auth=on" in t for t in deleted) and any("auth=off" in t for t in inserted),
          f"the diff: -{deleted} +{inserted}")
    check(rv1 in text_of("#main"), "the diff names the earlier approval")
    shot("03-review-refuted-diff")
    driver.find_element(By.ID, "approve").click()
    wait.until(EC.visibility_of_element_located((By.ID, "review-list")))
    gone(rv2)
    second = poll(planner, task2)
    check(second["status"]["state"] == "TASK_STATE_COMPLETED", f"second release: {second}")
    again = poll(planner, task2)
    check(again["id"] == second["id"], "a settled poll answers alike")
    out["second"] = {"review": rv2, "task": task2, "context": second["contextId"], "state": second["status"]["state"]}

    # A third write waits while forged requests try to answer it; then it is rejected in the page.
    task3, rv3 = write(planner, "ctx-third", "/srv/other.conf", "debug=true\n")
    review_row(rv3)
    session = driver.get_cookie("blindfold_console")["value"]
    csrf = driver.execute_script(
        "return fetch('/console/api/session', {credentials: 'same-origin'}).then(r => r.json()).then(j => j.csrf)")
    approve_path = f"/console/api/reviews/{rv3}/approve"
    jar = {"Cookie": f"blindfold_console={session}", "Content-Type": "application/json"}
    forged = {
        "no_cookie": raw("POST", approve_path, {"Origin": a.base, "X-CSRF-Token": csrf, "Content-Type": "application/json"}, b"{}"),
        "wrong_origin": raw("POST", approve_path, {**jar, "Origin": a.site, "X-CSRF-Token": csrf}, b"{}"),
        "no_origin": raw("POST", approve_path, {**jar, "X-CSRF-Token": csrf}, b"{}"),
        "no_csrf": raw("POST", approve_path, {**jar, "Origin": a.base}, b"{}"),
        "wrong_csrf": raw("POST", approve_path, {**jar, "Origin": a.base, "X-CSRF-Token": "0" * 64}, b"{}"),
        "reject_no_csrf": raw("POST", f"/console/api/reviews/{rv3}/reject", {**jar, "Origin": a.base}, b"{}"),
        "modes_no_csrf": raw("POST", "/console/api/modes", {**jar, "Origin": a.base}, b'{"name": "off"}'),
        "read_no_cookie": raw("GET", f"/console/api/reviews/{rv3}", {}),
        "rebound_host": raw("GET", f"/console/api/reviews/{rv3}", {**jar, "Host": "attacker.example"}),
    }
    out["forged"] = {k: r.status_code for k, r in forged.items()}
    check(all(r.status_code in (401, 403) for r in forged.values()), f"forged requests: {out['forged']}")
    # A page of another site posting to the console: the SameSite=Strict cookie stays home.
    driver.get(f"{a.site}/attack?target={a.base}{approve_path}")
    wait.until(lambda d: d.current_url.endswith("/approve") and "error" in d.page_source)
    out["cross_site_page"] = driver.find_element(By.TAG_NAME, "body").text[:200]
    still = raw("GET", f"/console/api/reviews/{rv3}", {"Cookie": f"blindfold_console={session}"}).json()
    check(still["status"] == "pending", f"a forged request changed the item: {still}")
    check(http.get("/healthz").json()["modes"]["enforce"] is True, "a forged request changed the modes")
    check(poll(planner, task3)["status"]["state"] == "TASK_STATE_AUTH_REQUIRED", "still held")

    driver.get(a.base + "/console/#/reviews")
    review_row(rv3)
    approve_in_page(rv3)
    driver.find_element(By.ID, "reject-note").send_keys("not on a Friday")
    shot("04-review-to-reject")
    driver.find_element(By.ID, "reject").click()
    wait.until(EC.visibility_of_element_located((By.ID, "review-list")))
    gone(rv3)
    third = poll(planner, task3)
    check(third["status"]["state"] == "TASK_STATE_REJECTED", f"third: {third}")
    check("not on a Friday" in json.dumps(third), "the note reaches the coordinator")
    out["third"] = {"review": rv3, "task": task3, "state": third["status"]["state"]}
    shot("05-reviews-empty")

    # The trajectory: held rows in red, the vectors, the flow.
    trajectory = "console-demo"
    driver.get(f"{a.base}/console/#/trajectories")
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, f'tr[data-trajectory="{trajectory}"]')))
    shot("06-trajectories")
    driver.find_element(By.CSS_SELECTOR, f'tr[data-trajectory="{trajectory}"] a').click()
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, "#records tr.blocked")))
    wait.until(lambda d: d.execute_script("const i = document.getElementById('flow'); return i && i.complete && i.naturalWidth > 0"))
    blocked = driver.find_elements(By.CSS_SELECTOR, "#records tr.blocked")
    colour = blocked[0].find_element(By.CSS_SELECTOR, "td").value_of_css_property("background-color")
    rgb = [int(x) for x in colour[colour.index("(") + 1:colour.index(")")].split(",")[:3]]
    check(rgb[0] > 230 and rgb[1] < 240 and rgb[0] - rgb[2] > 10, f"blocked row colour {colour}")
    check(any("review" in b.text for b in blocked), "a held row reads review")
    check(planner in text_of("#vectors") and reviewer in text_of("#vectors"), "vectors per agent")
    out["blocked_rows"] = len(blocked)
    out["blocked_colour"] = colour
    shot("07-trajectory")

    driver.get(f"{a.base}/console/#/modes")
    wait.until(EC.presence_of_element_located((By.ID, "mode-enforce")))
    check(driver.find_element(By.ID, "mode-enforce").is_selected(), "enforce shown on")
    # A per-trajectory override set in the page goes through set_modes and shows in the list.
    driver.find_element(By.ID, "override-trajectory").send_keys("console-demo")
    driver.find_element(By.CSS_SELECTOR, '#override-preset option[value="preverify"]').click()
    driver.find_element(By.ID, "override-set").click()
    wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, 'tr[data-override="console-demo"]')))
    shot("08-modes")
    modes = driver.execute_script(
        "return fetch('/console/api/modes', {credentials: 'same-origin'}).then(r => r.json())")
    check(modes["overrides"][0]["modes"]["anonymize"] is False, f"override: {modes}")
    driver.find_element(By.CSS_SELECTOR, 'tr[data-override="console-demo"] button').click()
    wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, 'tr[data-override="console-demo"]'))
    print(json.dumps(out))
except Exception as e:  # noqa: BLE001 - every failure is reported with a screenshot
    try:
        shot("99-failure")
    except Exception:  # noqa: BLE001
        pass
    print(json.dumps({**out, "error": f"{type(e).__name__}: {e}"}))
    sys.exit(1)
finally:
    driver.quit()
