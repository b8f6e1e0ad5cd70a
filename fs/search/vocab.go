package search

import (
	"strings"
	"sync"
)

// The vocabulary: the words people use for what tools do and what they act
// on, mapped to the words tool names and descriptions use. It is written
// for tools in general (files, repositories, browsers, chat, maps,
// databases, memory), never for one query or one server.
//
// Three kinds of entries, all in the plain words people type (they are
// split and stemmed like the text they meet):
//   - synonyms: each word of a line stands for the others;
//   - related: the words on the left lead to those on the right, not back
//     ("visit" finds "navigate", "navigate" is not a visit);
//   - phrases: a few words together mean something their words alone do
//     not ("pull request", "look up", "go back"); stop words of a query
//     may stand between them. The right side lists alternatives, separated
//     by commas; the words of one alternative must all match.
const (
	synonymWeight = 0.7 // a match through the vocabulary, against a literal one
	relatedWeight = 0.5
)

var synonymLines = `
folder directory dir
save write store persist
remove delete erase wipe forget discard destroy purge
find search lookup locate query
fetch retrieve obtain read
code script snippet program
create make new
update edit change modify alter replace
move rename relocate
send post publish
reply answer respond
image picture photo img
repository repo project
issue bug ticket
run execute evaluate eval
javascript js script
click tap
close shut quit exit dispose
compress gzip zip archive
coordinate latitude longitude geocode lat lng
location place position
direction route itinerary
distance far mile kilometer km
elevation altitude
web internet online
news article headline
user people member
emoji reaction
relation relationship connection
entity node
memory knowledge
think thought reason reflect
sql database db
environment env
echo repeat
upload attach
hover mouseover
metadata info information detail
permission access allow permit
commit push
label tag
back previous
whole entire complete full
dialog popup alert modal prompt
accessibility a11y aria
glob pattern wildcard
latest recent last newest
organization org
page webpage website site
near nearby local around
email mail
calendar agenda
event meeting appointment
document doc
spreadsheet sheet
cancel abort stop kill terminate halt
start launch begin
restart reboot
config configuration setting preference
secret credential password token
deploy release rollout
install setup
error exception failure
task todo
note memo
message msg
video movie clip
audio sound
price cost
weather forecast
summarize summary
statistic stats metric
simulate fake mock dummy
tweak adjust modify
screenshot screencap screengrab
inbox mailbox
invite invitation
`

var relatedLines = `
list show display view enumerate: list
show display view print see: read get
dump export: read all
download load open: get read content
open visit browse goto: navigate url
add: create new insert sum
google bing duckduckgo: search web
append insert: edit write add
put place: write save
fix correct: edit update
record log: store save observation
know knew: knowledge memory search
say said tell told: message
box textbox textarea input: field input text
dm: message
grab: get capture
image picture photo: screenshot
readme txt md json yaml yml csv pdf: file
pick choose dropdown combobox: select option
fork clone copy duplicate: fork
type enter input: type fill
press keystroke keyboard: press key
capture: screenshot snapshot
size big large bytes: size
when date time modified changed: time modified
hierarchy recursive recursively structure: tree recursive
preview: dry run
history: recent history log
approve reject: review
ci build checks passing pass: status check
table tables row rows column columns: sql database query
remember memorize recall: memory knowledge store
check inspect stat exist exists: info metadata
fact facts note notes: observation
person someone: entity user
link linked: relation connect create url
team workspace: workspace
chat: message channel
announcement announce: message post
email title bio: profile
text contents: content text
restaurant restaurants cafe shop shops business businesses coffee: business place local
drive driving walk travel trip: direction distance travel
height tall: elevation
theme: color scheme
thread: thread reply
sum total plus: sum add
markdown: md
drop unlink detach disconnect: delete remove
jot scribble: write note
return: back previous
hit: press click
enter escape esc backspace: key press
outline skeleton: tree structure snapshot
appear appears contain contains occur occurs mention mentions present: find search text
logs logged console: console log message
error errors warning warnings: console log message
depend depends relate relates belong belongs: relation
reply respond answer comment: comment
street avenue road zip postcode postal: address
summit peak mountain: elevation
room rooms: channel
coworker colleague teammate: user member
confirm confirmation: dialog accept
accept dismiss: dialog handle
title author owner creator: detail info
source: code content file
smaller shrink: compress
enable disable turn switch: toggle on off
subscribe watch follow: subscription
slow lengthy: long running
number numbers digit digits: number sum
document documents: file
company companies firm: organization entity
stash stow: save store write
peek glance skim: read view content
cat: read content file
ls: list directory
mkdir: create directory folder
rmdir: delete remove directory
rm del: delete remove
mv: move rename
grep: search find text pattern
subfolder subfolders subdir subdirs: subdirectory directory nested
nuke trash toss ditch scrap junk zap axe bin: delete remove
clobber rewrite: overwrite write
amend patch: edit update change
typo typos: edit text
substitute swap: replace edit
prepend: insert edit add
bunch batch bulk handful several: multiple
biggest largest heaviest hefty huge megabytes kilobytes gigabytes mb kb gb: size
chmod readonly writable: permission
pic pics graphic graphics artwork illustration: image
song songs music recording recordings podcast: audio media
surf: navigate browse web
reload: navigate page url
refresh: update navigate
backward backwards: back previous
snap: screenshot capture
dom markup: snapshot element page
tick untick uncheck: click checkbox
populate: fill type
login signin logon: fill form type
menu: option dropdown select
pause sleep delay: wait
vanish vanishes vanished: disappear gone
maximize minimize enlarge: resize window
mobile: viewport resize emulate device
appearance: color scheme theme
traffic xhr ajax har endpoint endpoints: network request
devtools: console
shortcut hotkey: key press keyboard
ctrl cmd alt: key modifier press
chrome chromium firefox safari webkit: browser
homepage: page url website
scrape crawl: snapshot content text
widget: element
inject: script evaluate
codebase codebases monorepo: repository repo code
changeset changesets: change commit
touched: changed modified
land: merge
lgtm signoff: approve review
feedback remark remarks: comment review
pipeline pipelines workflow workflows: status check
sync synchronize resync stale outdated behind: update latest
defect defects glitch crash crashes: bug issue
contributor contributors folks devs developers engineers staff employees roster: user member
mirror: fork copy
scaffold bootstrap: create new init
definition definitions symbol symbols: code
blame: commit history
gh: github
bump: update
ping notify nudge shout holler broadcast shoot: message post send
conversation conversations convo: thread message
discussion discussions: thread comment
smiley emoticon emote upvote: reaction emoji
scrollback chatter: history message
whois: profile user
gps coords: coordinate latitude longitude
lon: longitude
hotel hotels motel inn lodging pub pubs gym museum museums attraction attractions landmark landmarks bakery eatery diner bistro pharmacy hospital venue venues: place business local
commute journey: direction route travel
bike biking cycling: bicycling travel
bus train subway metro tram: transit
eta: duration travel time
terrain topography: elevation
closest nearest: near nearby
whereabouts: location place address
addr: address
postgresql psql pg mysql sqlite: sql database query
average avg aggregate: sql query
mind brain: memory knowledge
attribute attributes property properties trait traits quirk quirks: observation metadata
tie ties tied: relation link
concept concepts: entity node
recollect: memory recall
wiki wikipedia websearch: search web
hunt seek scour: search find
tally: sum add total
compute: calculate
parrot: echo repeat
vars: variable environment
brainstorm ponder mull deliberate contemplate: think thought reason
creds: credential secret password
num: number
href: url link
proj: project
schedule reschedule postpone: calendar event meeting
layout: tree structure
compose: write message
paste: write type fill
reword rephrase: edit replace text
retitle: rename
reorganize rearrange: move rename
attachment: upload file
trunk: main master branch
hash: sha commit
changelog: commit history
reviewer: review
nit nitpick: comment review
mergeable: merge status
ship: merge
tracker: issue
backlog: issue list
priority severity: label
usage caller: code search
jenkins travis circleci cicd: status check
inform: message send post
share: send post message
ask: message post send
unread: recent message history
yesterday earlier lately: recent history
recap: recent history
avatar: profile image
timezone: profile user
geo geolocation geotag latlng latlong: coordinate geocode location
poi: place
food eat lunch dinner breakfast brunch takeout sushi burger brewery: restaurant business place local
supermarket grocery mall atm bank gas dentist doctor clinic vet salon barber cinema theater theatre airport school zoo stadium church: place business local
town village neighborhood neighbourhood district suburb: city address location
hill hilly steep: elevation
localstorage: evaluate javascript script
xpath locator: selector element
keypress keydown keyup: press key
tablet iphone ipad android smartphone: viewport device resize
fullscreen: resize window
extract: content text read
html: page content snapshot
payload: body request
mariadb rdbms: sql query
customer revenue invoice: sql query
vertex vertices triple ontology: entity relation node
married spouse wife husband sibling: relation
category: label tag
strategy strategize: plan think
puzzle riddle dilemma tradeoff: problem think thought
rethink: revise reconsider think
tutorial: search web article
recipe lyrics: search web
weather forecast: search web
happening: news recent
arithmetic addition math: sum
signup: fill form type
inside: content list
modification modifications mtime ctime: modified time
whitelist whitelisted allowlist allowlisted: allowed access
jpg gif svg bmp tiff heic: image media file
mp3 wav ogg flac aac m4a: audio media file
tar tarball squeeze: compress gzip
redact: edit replace
cleanup: delete remove
backup backups: write save
obliterate eradicate expunge annihilate eliminate prune: delete remove
spawn instantiate: create new start
python py golang rust ruby typescript tsx jsx cpp kotlin swift: code file
suffix suffixes: ext extension pattern
utf8 ascii charset unicode: encoding text
pwd cwd: directory current
du: size directory
sed: replace edit text
vim nano emacs notepad editor: edit file
blank: empty new
triage: label issue update
approval approvals greenlight: approve review
inline: review comment
green flaky lint linter: status check
checkout: branch
regression regressions incident incidents outage: bug issue
enhancement: issue
jira: issue
bitbucket gitea: repository git
conflict conflicts: update branch base
sprint: milestone
contribute contributing: fork pull request
scroll scrolling wheel pagedown pageup: key press evaluate
tooltip tooltips: hover
thumbnail: screenshot image
render rendered rendering: screenshot page
dimension dimensions: size width height resize
stacktrace traceback: error console
graphql websocket websockets cors latency bandwidth intercept sniff: network request
redirect redirects redirected: navigate url request
automate automation: run code script
timeout: wait time
spinner loader: wait
picker: chooser upload select
onscreen: screenshot snapshot
logout signout logoff: click
responsive: viewport resize device
lightbox overlay: dialog
searchbox textfield: field input text
iframe iframes: element page
median percentile stddev variance pivot histogram distinct: sql query
subquery cte tabular: sql query
sales profit profits: sql query
clap rocket checkmark thumbsup ack: reaction emoji
chatroom chatrooms: channel
pfp headshot: profile image
contact contacts: profile user
transport transportation: transit travel
taxi cab rideshare uber lyft: driving
waypoint waypoints stopover detour: direction
fastest quickest: direction duration
mileage: distance
feet: elevation meter
sightseeing nightlife beach beaches lake lakes trail trails: place local
plumber electrician mechanic locksmith florist: business local place
country countries province region: address location
blog blogs faq guide guides manual howto stackoverflow reddit forum forums encyclopedia: search web article
stock stocks sports election elections: news search web
journal diary notebook: observation memory knowledge
favorite favourite birthday birthdays anniversary: observation entity memory
friend friends boss mentor acquaintance acquaintances: relation entity
cousin uncle aunt daughter son brother sister mom dad mother father grandmother grandfather: relation entity
weigh weighing decide: think thought decision
logic logical: think thought
hypotheses hypothesize: hypothesis think
stepwise: step thought
demo demos showcase: demonstrates example
icon icons favicon: image logo
clarify clarifying: clarification elicitation ambiguous
pinpoint unearth: find search locate
sift: search filter
occurrence occurrences: find search text
clock: time current
rain raining snow snowing temperature humidity: search web
snag: get capture
peruse: read view
dockerfile makefile gitignore dotfile dotfiles: file
gist gists: snippet code file
unassign reassign: assign update
relabel: label update
reopen reopened: update issue
outstanding unresolved: open
accordion collapse: click element
stylesheet stylesheets: css style
today todays tonight: recent latest
aloud scratchpad: think thought
decompose decomposition: step problem thought
chuck: delete remove
listen listening hear: audio media
couple pair: multiple
disk: file
uncomment indent dedent: edit line
transfer transferred: move
mount mounted mounts: allowed directory
closer nearer: near distance
farther: distance
finder explorer: directory file list
confine confined chroot jail: allowed directory
misplace misplaced: search find
spotlight ripgrep rg: search find pattern
concatenate concat: read multiple file
chown chgrp: permission owner
vi: edit file
xlsx xls docx pptx odt rtf workbook worksheet powerpoint slideshow: file
mp4 mkv webm avi: media file
selfie: image
capitalize capitalise uppercase lowercase: edit replace text
refactor: edit replace code
proofread proofreading: edit text
strip: edit replace
jq: json
committer committers: commit
epic epics subtask subtasks: issue
kanban: issue list
roadmap: milestone plan
deadline deadlines deliverable deliverables: milestone
blocker blockers: issue label
hotfix bugfix: branch
dependabot renovate: pull request
npm pypi: repository
glab: gitlab
jql: search issue
codeowners: owner maintainer
cve cves vuln vulns vulnerability vulnerabilities: issue search
hunk hunks: diff change
headcount: user member list
pgadmin dbeaver datagrip tableplus: sql query
mssql tsql plsql oracle sqlserver bigquery redshift snowflake duckdb supabase cockroachdb: sql query
ddl: sql schema
transaction transactions inventory: sql query
churn retention cohort funnel kpi kpis: sql query
vlookup xlookup: sql query join
sumif countif: sql query
bookmark bookmarks: navigate url
snip snipping: screenshot capture
wcag: accessibility
waterfall: network request
bookmarklet userscript tampermonkey greasemonkey: evaluate javascript script
selenium webdriver cypress: browser
autofill autocomplete prefill: fill form
otp passcode: type fill field
picklist multiselect: select option dropdown
hyperlink hyperlinks: link click
portrait landscape orientation: viewport resize device
curl wget httpie: request url fetch
repl: evaluate run code
discord mattermost zulip irc msteams: channel message
whatsapp telegram sms: message send
standup standups: message post channel
blast: message post send
fyi: message post
reacji: reaction emoji
presence: profile user
workmate workmates: user member
circulate: message post send
satnav waze citymapper mapquest: direction
stroll strolling: walk walking
carpool: driving
ferry ferries: transit
arrive arrival arriving: duration travel
depart departure departing: origin travel
viral buzz celebrity gossip: news search web
score scores scoreboard: news search web
synonym synonyms antonym antonyms thesaurus dictionary: search web
translate translation translations: search web
buy buying purchase deals coupon coupons discount: search web
airfare flight flights: search web
currency currencies forex: search web
citation citations cite arxiv scholar pubmed: search web research article
kagi ecosia startpage yahoo perplexity: search web
learnt: memory knowledge observation
unlearn: delete observation memory
zettelkasten: knowledge graph memory
backlink backlinks: relation
mindmap: graph node relation
neo4j: graph node relation
dossier: entity observation
nickname nicknames: entity name observation
allergy allergies hobby hobbies dislike dislikes: observation
remind reminder reminders: memory observation
methodical methodically systematic systematically meticulous meticulously: step think
introspect introspection: think thought reflective
postmortem rca: problem analysis think
troubleshoot troubleshooting diagnose diagnosis: problem think analysis
guess guesses guesswork assumption assumptions: hypothesis think
prove proof: verify hypothesis
iterate iterative iteratively: step revision thought
healthcheck heartbeat loopback roundtrip: echo
dotenv printenv getenv: environment variable
verbose verbosity: log level toggle
elicit: elicitation
calculator: sum add calculate
actualize actualise: update
craft: create write
establish: create
initiate: start create
construct: create new
eyeball: read view
shred: delete
renew upgrade: update
overhaul: edit update
relay deliver: send message
rummage ferret: search find
performance perf: network request
tuple tuples postgis: sql query
executable executables: permission file
symlink symlinks: file info
handover handoff delegate delegated: assign
escalate escalation: issue label
pending: status review
shoutout shoutouts kudos: message post
digest: recent history message
transcript transcripts: history message
ingredient ingredients horoscope trivia: search web
showtime showtimes concert concerts festival festivals: search web local
partner partners girlfriend boyfriend fiance fiancee roommate neighbor neighbors neighbour neighbours: relation entity
employer employers: relation organization
deduce deduction: think infer
`

var phraseLines = `
pull request: pull request
pr: pull request
prs: pull request
mr: merge request
look up: search, find
look for: search, find
look at: get, read
open an issue: create issue
open a bug: create issue
open a ticket: create issue
file an issue: create issue
file a bug: create issue
file a ticket: create issue
report a bug: create issue
raise an issue: create issue
open a pull request: create pull request
open a pr: create pull request
open a merge request: create merge request
open a mr: create merge request
open page: navigate, url
open web page: navigate, url
open url: navigate, url
open website: navigate, url
open site: navigate, url
open link: navigate, url
get rid: delete, remove
go to: navigate
go back: back, previous
mouse over: hover
up to date: update, latest
dry run: dry run
sea level: elevation
how high: elevation
dark mode: dark, color scheme
light mode: light, color scheme
turn by turn: direction
how far: distance
how long: duration, time, distance
how big: size
how large: size
web page: page, url
knowledge base: knowledge graph
thumbs up: reaction, emoji
step by step: thought, sequential
below the fold: full page
last changed: modified, time
last modified: modified, time
last updated: modified, time
write down: write, note
pull up: get, open, read
bring up: get, open, read
catch up: history, recent message
propose changes: pull request, merge request
submit changes: pull request, merge request
screen grab: screenshot
find out: search, get
turn on: toggle, enable
turn off: toggle, disable
switch on: toggle, enable
switch off: toggle, disable
where is: search, find
where are: search, find
where can: search, find
what is in: list
what's in: list
keep in mind: memory, observation
how many: count, number
spin up: create, start, launch
set up: create, setup, install
kick off: start, trigger, create
tear down: delete, remove, close
throw away: delete, remove
dig up: search, find, get
track down: search, find
hunt down: search, find
figure out: search, get
look into: search, find, investigate
sign in: fill form, type
screen shot: screenshot
print screen: screenshot
look like: screenshot
looks like: screenshot
pop up: dialog
go away: disappear
heads up: message, post
follow up: reply, comment
chime in: reply, comment
reach out: message, send
drop a line: message, send
sign off: approve, review
request changes: review
close issue: update issue
close bug: update issue
close ticket: update issue
reopen issue: update issue
branch off: create branch
add up: sum
close by: near, nearby
on foot: walk, walking
by car: driving, drive
by bike: bicycling
break down: step, thought
think through: think, thought
make note: observation, write
note down: write, note
keep track: memory, observation
web address: url, navigate
search engine: search web
jump to: navigate
head over: navigate
find and replace: replace, edit
search and replace: replace, edit
let know: message, post, send
let team know: message, post
let everyone know: message, post
let people know: message, post
let folks know: message, post
let channel know: message, post
did i miss: history, recent message
i missed: history, recent message
we decide: history, message
we decided: history, message
we agree: history, message
we agreed: history, message
was decided: history, message
was agreed: history, message
check messages: history, recent message
check channel: history, message
tell me about: search, get, read
tell us about: search, get, read
don t forget: memory, observation
dont forget: memory, observation
do not forget: memory, observation
never forget: memory, observation
for later: memory, save
everything you know: knowledge graph, memory
everything you remember: knowledge graph, memory
works at: relation
works for: relation
work at: relation
work for: relation
reports to: relation
report to: relation
report issue: create issue
report problem: create issue
feature request: create issue
request feature: create issue
suggest feature: create issue
suggest change: pull request, merge request
suggest changes: pull request, merge request
upload changes: push, commit
open source: repository, project
cut branch: create branch
github actions: status check
git log: commit, history
pr diff: pull request file
pull request diff: pull request file
group by: sql, query
status code: network request, response
api call: network request
api calls: network request
site slow: network request
page slow: network request
website slow: network request
slow site: network request
slow page: network request
slow website: network request
slow to load: network request
loads slowly: network request
load time: network request
local storage: evaluate javascript
session storage: evaluate javascript
screen reader: accessibility, snapshot
address bar: navigate, url
url bar: navigate, url
log in to: fill form, type
log into: fill form, type
log me in: fill form, type
log on: fill form, type
sign up: fill form, type
how get to: direction
how get there: direction
drop a pin: coordinate, location
pros and cons: think, thought
read up: search web
learn about: search web
google it: search web
google for: search web
google search: search web
search google: search web
googling: search web
googled: search web
what changed: change, diff, commit
what s changed: change, diff, commit
where s: search, find
open file: read file, read
open folder: list directory
open directory: list directory
top of file: head file
bottom of file: tail file
end of file: tail file
disk space: size
disk usage: size
how much space: size
take up space: size
takes up space: size
taking up space: size
time zone: profile, user
open image: read media, image
open photo: read media, image
open picture: read media, image
walk directory: tree, recursive
walk folder: tree, recursive
walk tree: tree, recursive
last edited: modified, time
last touched: modified, time
last saved: modified, time
where did i put: search, find
where did i save: search, find
clean up: delete, remove
clean out: delete, remove
comb through: search, find
whip up: create, write
type up: write
touch up: edit
at once: multiple, simultaneous
without saving: dry run
without applying: dry run
what would change: dry run, preview
feature branch: branch
topic branch: branch
release branch: branch
merge conflict: update branch
merge conflicts: update branch
out of date: update, latest
leave comment: comment
leave review: review
weigh in: comment, reply
ctrl f: find text, find
cmd f: find text, find
hit return: press key
press return: press key
hit tab: press key
press tab: press key
tab key: press key
page source: snapshot, content
view source: snapshot, content
inspect element: snapshot, element
on screen: screenshot, snapshot
user agent: emulate, device
page say: snapshot, text
page says: snapshot, text
follow link: click, navigate
show up: appear
shows up: appear
search box: type, fill
search bar: type, fill
search field: type, fill
search input: type, fill
sign out: click
log out: click
select count: sql, query
select statement: sql, query
primary key: sql, schema
foreign key: sql, schema
direct message: message
private message: message
update team: message, post
update everyone: message, post
status update: message, post
drop note: message, post
drop message: message, post
fire off: send, message
loop in: message, send
things to do: place, local
zip code: address
postal code: address
post code: address
open now: hour
opening hours: hour, detail
opening times: hour, detail
public transport: transit
public transit: transit
rush hour: driving, duration
as the crow flies: distance
current events: news, recent
who won: news, search web
press coverage: news
press release: news
stack overflow: search web
hacker news: news, search web
walk through: think, thought, step
work through: think, thought
weigh options: think, thought
weigh up: think, thought
evaluate options: think, thought
trade off: think, thought
trade offs: think, thought
root cause: problem, think
note to self: memory, observation
take note: observation, write
hang on to: memory, save
hold on to: memory, save
about me: observation, entity, memory
org chart: relation, entity
say back: echo
send back: echo
hang onto: memory, save
hold onto: memory, save
comment out: edit
rename variable: edit, replace
rename function: edit, replace
browse folder: list directory
browse directory: list directory
map out: tree, structure
log bug: create issue
log issue: create issue
log ticket: create issue
submit for review: create pull request
propose change: pull request, merge request
propose fix: pull request, merge request
mark done: close, update
navigate from: direction
search page: find text, find
no longer: delete
like message: reaction, emoji
like post: reaction, emoji
out loud: think, thought
key in: type, fill
punch in: type, fill
query plan: sql, query
execution plan: sql, query
table structure: sql, schema
column type: sql, schema
column types: sql, schema
group chat: channel, message
mirror back: echo
do away with: delete, remove
fill me in: history, recent message
up to speed: history, recent message
downloads folder: directory
download folder: directory
downloads directory: directory
home folder: directory
home directory: directory
desktop folder: directory
documents folder: directory
beginning of file: head file
start of file: head file
first lines: head file
first few lines: head file
last lines: tail file
last few lines: tail file
side by side: multiple, compare
delete line: edit, line
delete lines: edit, line
remove line: edit, line
remove lines: edit, line
insert line: edit, line
add line: edit, line
change line: edit, line
drag to folder: move file, move
drag into folder: move file, move
file owner: info, permission
user story: issue
story points: issue, label
good first issue: search issue, label
help wanted: issue, label
tests pass: status check
tests passing: status check
tests failing: status check
tests fail: status check
test results: status check
test suite: status check
build broken: status check
broken build: status check
build failing: status check
failing build: status check
fast forward: merge, update branch
catch up with main: update branch
catch up with master: update branch
order by: sql, query
where clause: sql, query
list tables: sql, schema
show tables: sql, schema
describe table: sql, schema
explain analyze: sql, query
stored procedure: sql
night mode: dark, color scheme
photo of screen: screenshot
picture of screen: screenshot
photo of page: screenshot
picture of page: screenshot
image of page: screenshot
text message: message
put message: message, post
job title: profile
display name: profile
real name: profile
navigate me: direction
route me: direction
way to get to: direction
minutes away: duration, distance
miles away: distance
in the area: near, local
around the corner: near, local
open late: hour, detail
closing time: hour, detail
business hours: hour, detail
hours of operation: hour, detail
still open: hour, detail
top rated: place, local
highly rated: place, local
good reviews: place, local
breaking news: news
what have you learned: knowledge graph, memory
what do you know: knowledge graph, memory
long term memory: memory, knowledge graph
graph view: knowledge graph, read graph
mind map: knowledge graph
family tree: relation, entity
lives in: observation, relation
born in: observation
chain of thought: think, thought
rubber duck: think, thought
second thoughts: revision, thought
change my mind: revision, thought
step back: think, backtrack
background job: long running operation
background task: long running operation
test image: tiny image
dummy image: tiny image
tell me: get, read
team knows: message, post
everyone knows: message, post
action item: issue
action items: issue
what s new: recent
what is new: recent
in progress: issue, state
make sure: check, verify
hand off: assign
touch base: message, send
circle back: reply, message
how say: search web
fact check: search web
what if: hypothesis, think`

// vocab is the parsed vocabulary, on stems.
type vocab struct {
	synonyms map[string][]string   // stem → the other stems of its lines
	related  map[string][][]string // stem → what it leads to
	phrases  []phrase
}

type phrase struct {
	words []string   // the words as typed, unstemmed, lower case
	to    [][]string // alternatives: each a list of stems, all to match
}

// theVocab is the parsed vocabulary, built on first use: every mcpfs
// command links this package, few search.
var theVocab = sync.OnceValue(parseVocab)

func parseVocab() *vocab {
	v := &vocab{synonyms: map[string][]string{}, related: map[string][][]string{}}
	for _, line := range strings.Split(synonymLines, "\n") {
		ts := vocabTerms(line)
		for _, t := range ts {
			for _, u := range ts {
				if u != t && !contains(v.synonyms[t], u) {
					v.synonyms[t] = append(v.synonyms[t], u)
				}
			}
		}
	}
	for _, line := range strings.Split(relatedLines, "\n") {
		from, to, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		for _, f := range vocabTerms(from) {
			for _, t := range vocabTerms(to) {
				if t != f {
					v.related[f] = append(v.related[f], []string{t})
				}
			}
		}
	}
	for _, line := range strings.Split(phraseLines, "\n") {
		from, to, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		p := phrase{words: words(from)}
		for _, alt := range strings.Split(to, ",") {
			if ts := vocabTerms(alt); len(ts) > 0 {
				p.to = append(p.to, ts)
			}
		}
		v.phrases = append(v.phrases, p)
	}
	return v
}

// vocabTerms stems the words of a vocabulary line, stop words included:
// the vocabulary says what it means.
func vocabTerms(line string) []string {
	var out []string
	for _, w := range words(line) {
		out = append(out, stem(w))
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
