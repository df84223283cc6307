
use builtin;
use str;

set edit:completion:arg-completer[dsh-agents] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'dsh-agents'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'dsh-agents'= {
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract model tools speak (list-agents, send-message, call, …)'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds (commands that write an inbox)'
            cand --max-pending 'Admission bound for sends: pending messages an inbox may hold before a send is rejected'
            cand --json 'Print JSON instead of text (errors too, on stderr)'
            cand --no-cache 'Resolve v2 names by scanning the store, without the name index in the cache directory'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand list-agents 'list_agents: v2 lists the caller''s whole tree; v1 lists children or descendants'
            cand send-message 'send_message: v2 any member of the caller''s tree by name or id; v1 a direct child by id'
            cand subagent-send-message 'subagent_send_message: a parent to one of its direct continuable children, by id'
            cand subagent-parent-message 'subagent_parent_message: a child to its direct parent'
            cand interrupt-agent 'interrupt_agent: stop a descendant''s current turn (v2 by name or id; v1 by id)'
            cand wait-agent 'wait_agent (v2): wait for new next-step input in the caller''s own inbox'
            cand call 'Run a model tool by name with its raw JSON arguments'
            cand followup 'Deliver a message as the user to AGENT''s next turn'
            cand steer 'Deliver a message as the user to AGENT''s next step'
            cand interrupt 'Interrupt AGENT''s current turn as the user'
            cand serve 'Hold AGENT live and run CMD once per turn with the claimed messages on stdin'
            cand bridge 'Companion of one DSH process: holds its agents live and hands it their messages (JSON lines on stdin/stdout)'
            cand inbox 'Show AGENT''s pending next-step and next-turn messages and parked state'
            cand claim 'Consume pending input as the agent loop does at a step boundary; print it as JSON'
            cand identity 'Print what the caller is told of itself: its name, who delegated it, its tree''s root'
            cand tree 'Every tree in the store (or the one holding AGENT): hierarchy, state, last turn, pending inbox, tokens'
            cand top 'The tree live in a terminal: each agent''s log, inbox, usage and traces beside it, and followup, steer, interrupt and cancel on keys'
            cand events 'State transitions, one line each: turns started and finished, agents becoming running, idle or inactive, problems, stale messages'
            cand watch 'Budgets on subtrees in tokens or money: an event at 80%, and at 100% an event or an interrupt of every running agent in the subtree'
            cand check 'Verify the whole store; report every problem with its path'
            cand log 'Show AGENT''s transcript: each turn, what the model saw and did, and how the turn ended'
            cand trace 'Show where a message went: sent, claimed, in the transcript, or why not'
            cand export 'The tree as OpenTelemetry traces (OTLP/JSON to a file or stdout, OTLP/HTTP to a collector)'
            cand usage 'Tokens each agent''s model calls used (and their cost, given prices)'
            cand fleet 'Agents on many hosts, over NATS JetStream: the hub, a host''s daemon, its status'
            cand cancel 'Withdraw a pending message before it is delivered'
            cand spawn 'Create a session (a root, or a child with --parent) and print its id'
            cand completions 'Print shell completions'
            cand man 'Print the man page (roff), of the tool or of one command'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'dsh-agents;list-agents'= {
            cand --as 'The calling agent: a Session id, a unique prefix (>= 4 characters), or a name path (reviewer/checker; v2 only: rc.8 takes a caller id as it is)'
            cand --scope 'v1 only: children (default) or descendants'
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract model tools speak (list-agents, send-message, call, …)'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds (commands that write an inbox)'
            cand --max-pending 'Admission bound for sends: pending messages an inbox may hold before a send is rejected'
            cand --json 'Print JSON instead of text (errors too, on stderr)'
            cand --no-cache 'Resolve v2 names by scanning the store, without the name index in the cache directory'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;send-message'= {
            cand --as 'The calling agent: a Session id, a unique prefix (>= 4 characters), or a name path (reviewer/checker; v2 only: rc.8 takes a caller id as it is)'
            cand --id 'Message id: repeating a send with the same id writes nothing and returns the same receipt'
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract model tools speak (list-agents, send-message, call, …)'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds (commands that write an inbox)'
            cand --max-pending 'Admission bound for sends: pending messages an inbox may hold before a send is rejected'
            cand --json 'Print JSON instead of text (errors too, on stderr)'
            cand --no-cache 'Resolve v2 names by scanning the store, without the name index in the cache directory'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;subagent-send-message'= {
            cand --as 'The calling agent: a Session id, a unique prefix (>= 4 characters), or a name path (reviewer/checker; v2 only: rc.8 takes a caller id as it is)'
            cand --id 'Message id: repeating a send with the same id writes nothing and returns the same receipt'
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract model tools speak (list-agents, send-message, call, …)'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds (commands that write an inbox)'
            cand --max-pending 'Admission bound for sends: pending messages an inbox may hold before a send is rejected'
            cand --json 'Print JSON instead of text (errors too, on stderr)'
            cand --no-cache 'Resolve v2 names by scanning the store, without the name index in the cache directory'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;subagent-parent-message'= {
            cand --as 'The calling agent: a Session id, a unique prefix (>= 4 characters), or a name path (reviewer/checker; v2 only: rc.8 takes a caller id as it is)'
            cand --mode 'followup: the parent''s next turn; steer: its next step'
            cand --id 'Message id: repeating a send with the same id writes nothing and returns the same receipt'
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract model tools speak (list-agents, send-message, call, …)'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds (commands that write an inbox)'
            cand --max-pending 'Admission bound for sends: pending messages an inbox may hold before a send is rejected'
            cand --json 'Print JSON instead of text (errors too, on stderr)'
            cand --no-cache 'Resolve v2 names by scanning the store, without the name index in the cache directory'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;interrupt-agent'= {
            cand --as 'The calling agent: a Session id, a unique prefix (>= 4 characters), or a name path (reviewer/checker; v2 only: rc.8 takes a caller id as it is)'
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract model tools speak (list-agents, send-message, call, …)'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds (commands that write an inbox)'
            cand --max-pending 'Admission bound for sends: pending messages an inbox may hold before a send is rejected'
            cand --json 'Print JSON instead of text (errors too, on stderr)'
            cand --no-cache 'Resolve v2 names by scanning the store, without the name index in the cache directory'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;wait-agent'= {
            cand --as 'The calling agent: a Session id, a unique prefix (>= 4 characters), or a name path (reviewer/checker; v2 only: rc.8 takes a caller id as it is)'
            cand --timeout-ms 'Timeout in milliseconds, 10000 through 3600000'
            cand --call 'The root tool call: waits under one call report each id once'
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract model tools speak (list-agents, send-message, call, …)'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds (commands that write an inbox)'
            cand --max-pending 'Admission bound for sends: pending messages an inbox may hold before a send is rejected'
            cand --poll 'Poll instead of using file notification'
            cand --json 'Print JSON instead of text (errors too, on stderr)'
            cand --no-cache 'Resolve v2 names by scanning the store, without the name index in the cache directory'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;call'= {
            cand --as 'The calling agent: a Session id, a unique prefix (>= 4 characters), or a name path (reviewer/checker; v2 only: rc.8 takes a caller id as it is)'
            cand --id 'Message id: repeating a send with the same id writes nothing and returns the same receipt'
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract model tools speak (list-agents, send-message, call, …)'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds (commands that write an inbox)'
            cand --max-pending 'Admission bound for sends: pending messages an inbox may hold before a send is rejected'
            cand --json 'Print JSON instead of text (errors too, on stderr)'
            cand --no-cache 'Resolve v2 names by scanning the store, without the name index in the cache directory'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;followup'= {
            cand --id 'Message id: repeating a send with the same id writes nothing and returns the same receipt'
            cand --wait 'Wait until the message is in the target''s inbox (accepted) or in its transcript (delivered): for HOST:AGENT on another host; a local send is accepted when it returns'
            cand --timeout 'With --wait: the most seconds to wait (the message stays queued after it)'
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract model tools speak (list-agents, send-message, call, …)'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds (commands that write an inbox)'
            cand --max-pending 'Admission bound for sends: pending messages an inbox may hold before a send is rejected'
            cand --json 'Print JSON instead of text (errors too, on stderr)'
            cand --no-cache 'Resolve v2 names by scanning the store, without the name index in the cache directory'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;steer'= {
            cand --id 'Message id: repeating a send with the same id writes nothing and returns the same receipt'
            cand --wait 'Wait until the message is in the target''s inbox (accepted) or in its transcript (delivered): for HOST:AGENT on another host; a local send is accepted when it returns'
            cand --timeout 'With --wait: the most seconds to wait (the message stays queued after it)'
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract model tools speak (list-agents, send-message, call, …)'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds (commands that write an inbox)'
            cand --max-pending 'Admission bound for sends: pending messages an inbox may hold before a send is rejected'
            cand --json 'Print JSON instead of text (errors too, on stderr)'
            cand --no-cache 'Resolve v2 names by scanning the store, without the name index in the cache directory'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;interrupt'= {
            cand --expires 'For HOST:AGENT on another host: apply the interrupt only if it reaches that host within this many seconds (later, its receipt says expired)'
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract model tools speak (list-agents, send-message, call, …)'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds (commands that write an inbox)'
            cand --max-pending 'Admission bound for sends: pending messages an inbox may hold before a send is rejected'
            cand --json 'Print JSON instead of text (errors too, on stderr)'
            cand --no-cache 'Resolve v2 names by scanning the store, without the name index in the cache directory'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;serve'= {
            cand --as 'The calling agent: a Session id, a unique prefix (>= 4 characters), or a name path (reviewer/checker; v2 only: rc.8 takes a caller id as it is)'
            cand --grace-ms 'Milliseconds between SIGTERM and SIGKILL when a turn is stopped'
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract model tools speak (list-agents, send-message, call, …)'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds (commands that write an inbox)'
            cand --max-pending 'Admission bound for sends: pending messages an inbox may hold before a send is rejected'
            cand --once 'Exit when nothing runnable is left'
            cand --poll 'Poll instead of using file notification'
            cand --quiet 'Do not log each turn on stderr'
            cand --json 'Print JSON instead of text (errors too, on stderr)'
            cand --no-cache 'Resolve v2 names by scanning the store, without the name index in the cache directory'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;bridge'= {
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract model tools speak (list-agents, send-message, call, …)'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds (commands that write an inbox)'
            cand --max-pending 'Admission bound for sends: pending messages an inbox may hold before a send is rejected'
            cand --check 'Only check that the store can be the bridge''s (a readable directory, or not created yet), print the version, and exit'
            cand --json 'Print JSON instead of text (errors too, on stderr)'
            cand --no-cache 'Resolve v2 names by scanning the store, without the name index in the cache directory'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;inbox'= {
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract model tools speak (list-agents, send-message, call, …)'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds (commands that write an inbox)'
            cand --max-pending 'Admission bound for sends: pending messages an inbox may hold before a send is rejected'
            cand --json 'Print JSON instead of text (errors too, on stderr)'
            cand --no-cache 'Resolve v2 names by scanning the store, without the name index in the cache directory'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;claim'= {
            cand --as 'The calling agent: a Session id, a unique prefix (>= 4 characters), or a name path (reviewer/checker; v2 only: rc.8 takes a caller id as it is)'
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract model tools speak (list-agents, send-message, call, …)'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds (commands that write an inbox)'
            cand --max-pending 'Admission bound for sends: pending messages an inbox may hold before a send is rejected'
            cand --json 'Print JSON instead of text (errors too, on stderr)'
            cand --no-cache 'Resolve v2 names by scanning the store, without the name index in the cache directory'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;identity'= {
            cand --as 'The calling agent: a Session id, a unique prefix (>= 4 characters), or a name path (reviewer/checker; v2 only: rc.8 takes a caller id as it is)'
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract model tools speak (list-agents, send-message, call, …)'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds (commands that write an inbox)'
            cand --max-pending 'Admission bound for sends: pending messages an inbox may hold before a send is rejected'
            cand --json 'Print JSON instead of text (errors too, on stderr)'
            cand --no-cache 'Resolve v2 names by scanning the store, without the name index in the cache directory'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;tree'= {
            cand --width 'Fit rows to N columns [default: the terminal''s width, else 100]'
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract model tools speak (list-agents, send-message, call, …)'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds (commands that write an inbox)'
            cand --max-pending 'Admission bound for sends: pending messages an inbox may hold before a send is rejected'
            cand --all 'Also list root sessions that have no subagents, each as its own tree'
            cand --no-usage 'Leave out the TOKENS column (the tokens of each agent and those below it)'
            cand --live 'Only agents a resident process holds (and the agents above them)'
            cand --problems 'Only agents with a diagnostic or an unreadable inbox (and the agents above them)'
            cand --watch 'Redraw whenever the store changes, until Ctrl-C'
            cand --fleet 'Also every other host''s trees, as this host''s fleet daemon last heard them'
            cand --json 'Print JSON instead of text (errors too, on stderr)'
            cand --no-cache 'Resolve v2 names by scanning the store, without the name index in the cache directory'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;top'= {
            cand --budget 'Budgets to show: an agent''s tokens turn yellow at 80% of its subtree''s budget, red at 100% (the SPEC of `watch --budget`)'
            cand --prices 'A price table (JSON, as `usage --prices` reads) for money budgets'
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract model tools speak (list-agents, send-message, call, …)'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds (commands that write an inbox)'
            cand --max-pending 'Admission bound for sends: pending messages an inbox may hold before a send is rejected'
            cand --json 'Print JSON instead of text (errors too, on stderr)'
            cand --no-cache 'Resolve v2 names by scanning the store, without the name index in the cache directory'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;events'= {
            cand --since 'First the turns the logs record since this time: epoch ms, a UTC date (2026-12-01[T08:30]) or an age (30m, 2h, 7d)'
            cand --stale-after 'With --follow: report each message pending longer than this (90s, 10m, 2h), once'
            cand --exec 'Run CMD (with sh -c) for each event, the event as JSON on its standard input; a failing CMD is reported, the stream goes on'
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract model tools speak (list-agents, send-message, call, …)'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds (commands that write an inbox)'
            cand --max-pending 'Admission bound for sends: pending messages an inbox may hold before a send is rejected'
            cand -f 'Keep printing transitions as they happen, until Ctrl-C'
            cand --follow 'Keep printing transitions as they happen, until Ctrl-C'
            cand --json 'Print JSON instead of text (errors too, on stderr)'
            cand --no-cache 'Resolve v2 names by scanning the store, without the name index in the cache directory'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;watch'= {
            cand --budget 'AGENT=LIMIT[,AGENT=LIMIT...]: LIMIT in tokens (200000, 200k, 1.5m) or money ($5, $0.50, with --prices)'
            cand --prices 'A price table (JSON, as `usage --prices` reads) for money budgets'
            cand --on-exceed 'At 100%: report it, or also interrupt every running agent in the subtree'
            cand --exec 'Run CMD (with sh -c) for each event, the event as JSON on its standard input; a failing CMD is reported, the watch goes on'
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract model tools speak (list-agents, send-message, call, …)'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds (commands that write an inbox)'
            cand --max-pending 'Admission bound for sends: pending messages an inbox may hold before a send is rejected'
            cand --once 'Check once and exit, instead of following the store until Ctrl-C'
            cand --json 'Print JSON instead of text (errors too, on stderr)'
            cand --no-cache 'Resolve v2 names by scanning the store, without the name index in the cache directory'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;check'= {
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract model tools speak (list-agents, send-message, call, …)'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds (commands that write an inbox)'
            cand --max-pending 'Admission bound for sends: pending messages an inbox may hold before a send is rejected'
            cand --fleet 'Also the problems the other hosts of the fleet report in their session rows'
            cand --json 'Print JSON instead of text (errors too, on stderr)'
            cand --no-cache 'Resolve v2 names by scanning the store, without the name index in the cache directory'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;log'= {
            cand -n 'Only the last N turns (N at least 1)'
            cand --last 'Only the last N turns (N at least 1)'
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract model tools speak (list-agents, send-message, call, …)'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds (commands that write an inbox)'
            cand --max-pending 'Admission bound for sends: pending messages an inbox may hold before a send is rejected'
            cand --reasoning 'Show reasoning text instead of folding it'
            cand --full 'Show long messages, tool results and runtime context in full'
            cand -f 'Keep printing new events until the session settles (or Ctrl-C)'
            cand --follow 'Keep printing new events until the session settles (or Ctrl-C)'
            cand --poll 'With --follow: poll instead of using file notification'
            cand --json 'Print JSON instead of text (errors too, on stderr)'
            cand --no-cache 'Resolve v2 names by scanning the store, without the name index in the cache directory'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;trace'= {
            cand --to 'The target agent, HOST:AGENT on another host of the fleet [default: search every inbox for the id]'
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract model tools speak (list-agents, send-message, call, …)'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds (commands that write an inbox)'
            cand --max-pending 'Admission bound for sends: pending messages an inbox may hold before a send is rejected'
            cand --json 'Print JSON instead of text (errors too, on stderr)'
            cand --no-cache 'Resolve v2 names by scanning the store, without the name index in the cache directory'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;export'= {
            cand -o 'Write OTLP/JSON to FILE (- is standard output) [default: standard output]'
            cand --output 'Write OTLP/JSON to FILE (- is standard output) [default: standard output]'
            cand --endpoint 'Send OTLP/HTTP (protobuf) to a collector: http://HOST:PORT (the path /v1/traces is added when the URL has none)'
            cand --timeout 'With --endpoint: the most seconds the whole send may take (connect, request, answer)'
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract model tools speak (list-agents, send-message, call, …)'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds (commands that write an inbox)'
            cand --max-pending 'Admission bound for sends: pending messages an inbox may hold before a send is rejected'
            cand --all 'Every tree in the store'
            cand --otlp 'The format: OpenTelemetry''s OTLP (the only one)'
            cand --content 'Include message text and tool arguments and results'
            cand --json 'Print JSON instead of text (errors too, on stderr)'
            cand --no-cache 'Resolve v2 names by scanning the store, without the name index in the cache directory'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;usage'= {
            cand --since 'Only calls since this time: epoch ms, a UTC date (2026-12-01[T08:30]) or an age (30m, 2h, 7d)'
            cand --by 'Group the rows'
            cand --prices 'A JSON price table (per million tokens) to add a COST column'
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract model tools speak (list-agents, send-message, call, …)'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds (commands that write an inbox)'
            cand --max-pending 'Admission bound for sends: pending messages an inbox may hold before a send is rejected'
            cand --tree 'With AGENT: its whole subtree, each row with its subtree''s total'
            cand --fleet 'Each host of the fleet''s totals, from the session rows the hosts'' daemons wrote'
            cand --json 'Print JSON instead of text (errors too, on stderr)'
            cand --no-cache 'Resolve v2 names by scanning the store, without the name index in the cache directory'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;fleet'= {
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract model tools speak (list-agents, send-message, call, …)'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds (commands that write an inbox)'
            cand --max-pending 'Admission bound for sends: pending messages an inbox may hold before a send is rejected'
            cand --json 'Print JSON instead of text (errors too, on stderr)'
            cand --no-cache 'Resolve v2 names by scanning the store, without the name index in the cache directory'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand config 'Write the hub''s nats-server configurations, one NKey per host (and admin.nk) and fleet.json'
            cand init 'Create the hub''s streams, buckets and per-host consumers (idempotent)'
            cand run 'Serve this store as a host of the fleet: forward its outbox, take its mail into inboxes, keep receipts'
            cand status 'The fleet as this host last saw it: hosts and when each was last seen, the outbox, every cross-host send and how far it got'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'dsh-agents;fleet;config'= {
            cand --hosts 'The fleet''s host names (ASCII letters, digits, - and _)'
            cand --out 'Where the files go'
            cand --nodes 'Hub nodes: 3 for a fleet that survives a node, 1 to try it'
            cand --port 'The first node''s client port (the next nodes take the next ones; cluster ports are 100 above)'
            cand --addresses 'Where the nodes listen and hosts dial them: one address for all (consecutive ports), or one a node (each on --port)'
            cand --tls-cert 'TLS on the client and route ports: the nodes'' certificate (PEM; valid for 127.0.0.1 or the names hosts use)'
            cand --tls-key 'With --tls-cert: its private key (PEM)'
            cand --tls-ca 'With --tls-cert: the CA certificate that signed it (hosts pass it to --tls-ca)'
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract model tools speak (list-agents, send-message, call, …)'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds (commands that write an inbox)'
            cand --max-pending 'Admission bound for sends: pending messages an inbox may hold before a send is rejected'
            cand --json 'Print JSON instead of text (errors too, on stderr)'
            cand --no-cache 'Resolve v2 names by scanning the store, without the name index in the cache directory'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;fleet;init'= {
            cand --nats 'The hub''s URLs, comma-separated'
            cand --creds 'The admin NKey seed file (`fleet config` writes admin.nk)'
            cand --hosts 'The fleet''s hosts [default: those `fleet config` wrote into fleet.json beside --creds]'
            cand --replicas 'Copies of every stream and bucket (the hub''s node count, at most 5)'
            cand --ack-wait 'Seconds a mail taken by a host waits for its ack before the hub hands it out again'
            cand --dedup-window 'Seconds the hub drops a republished mail by its id (past it the target''s inbox still does)'
            cand --tls-ca 'A CA certificate: speak TLS to the hub and trust only it'
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract model tools speak (list-agents, send-message, call, …)'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds (commands that write an inbox)'
            cand --max-pending 'Admission bound for sends: pending messages an inbox may hold before a send is rejected'
            cand --json 'Print JSON instead of text (errors too, on stderr)'
            cand --no-cache 'Resolve v2 names by scanning the store, without the name index in the cache directory'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;fleet;run'= {
            cand --host 'This host''s name in the fleet (ASCII letters, digits, - and _)'
            cand --nats 'The hub''s URLs, comma-separated'
            cand --creds 'This host''s NKey seed file (`fleet config` writes HOST.nk)'
            cand --tls-ca 'A CA certificate: speak TLS to the hub and trust only it'
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract model tools speak (list-agents, send-message, call, …)'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds (commands that write an inbox)'
            cand --max-pending 'Admission bound for sends: pending messages an inbox may hold before a send is rejected'
            cand --json 'Print JSON instead of text (errors too, on stderr)'
            cand --no-cache 'Resolve v2 names by scanning the store, without the name index in the cache directory'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;fleet;status'= {
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract model tools speak (list-agents, send-message, call, …)'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds (commands that write an inbox)'
            cand --max-pending 'Admission bound for sends: pending messages an inbox may hold before a send is rejected'
            cand --json 'Print JSON instead of text (errors too, on stderr)'
            cand --no-cache 'Resolve v2 names by scanning the store, without the name index in the cache directory'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;fleet;help'= {
            cand config 'Write the hub''s nats-server configurations, one NKey per host (and admin.nk) and fleet.json'
            cand init 'Create the hub''s streams, buckets and per-host consumers (idempotent)'
            cand run 'Serve this store as a host of the fleet: forward its outbox, take its mail into inboxes, keep receipts'
            cand status 'The fleet as this host last saw it: hosts and when each was last seen, the outbox, every cross-host send and how far it got'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'dsh-agents;fleet;help;config'= {
        }
        &'dsh-agents;fleet;help;init'= {
        }
        &'dsh-agents;fleet;help;run'= {
        }
        &'dsh-agents;fleet;help;status'= {
        }
        &'dsh-agents;fleet;help;help'= {
        }
        &'dsh-agents;cancel'= {
            cand --to 'The target agent, HOST:AGENT for one on another host of the fleet [default: search every inbox for the id]'
            cand --wait 'Wait until the message is in the target''s inbox (accepted) or in its transcript (delivered): for HOST:AGENT on another host; a local send is accepted when it returns'
            cand --timeout 'With --wait: the most seconds to wait (the message stays queued after it)'
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract model tools speak (list-agents, send-message, call, …)'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds (commands that write an inbox)'
            cand --max-pending 'Admission bound for sends: pending messages an inbox may hold before a send is rejected'
            cand --json 'Print JSON instead of text (errors too, on stderr)'
            cand --no-cache 'Resolve v2 names by scanning the store, without the name index in the cache directory'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;spawn'= {
            cand --parent 'Parent Session id or unique prefix; omit to create a root'
            cand --name 'Agent name (1-64 of [A-Za-z0-9._-], not "lead", "." or "..", unique among siblings)'
            cand --label 'Creation label (the description list_agents shows)'
            cand --mode 'Child mode'
            cand --prompt 'The initial prompt, recorded as the first turn'
            cand --id 'Session id [default: a random UUID]'
            cand --created-at 'Creation time in epoch milliseconds [default: now]'
            cand --cwd 'Project directory (absolute); children inherit the parent''s by default'
            cand --compression 'Encoding for a new store (an existing store keeps its own)'
            cand --provider 'Subagent provider recorded in the descriptor'
            cand --format-version 'Log format generation to write: 0 (DSH 0.1.0-rc.8, session.jsonl) to 4 (session.v4.jsonl) [default: the store''s newest, else 0]'
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract model tools speak (list-agents, send-message, call, …)'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds (commands that write an inbox)'
            cand --max-pending 'Admission bound for sends: pending messages an inbox may hold before a send is rejected'
            cand --json 'Print JSON instead of text (errors too, on stderr)'
            cand --no-cache 'Resolve v2 names by scanning the store, without the name index in the cache directory'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;completions'= {
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract model tools speak (list-agents, send-message, call, …)'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds (commands that write an inbox)'
            cand --max-pending 'Admission bound for sends: pending messages an inbox may hold before a send is rejected'
            cand --json 'Print JSON instead of text (errors too, on stderr)'
            cand --no-cache 'Resolve v2 names by scanning the store, without the name index in the cache directory'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;man'= {
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract model tools speak (list-agents, send-message, call, …)'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds (commands that write an inbox)'
            cand --max-pending 'Admission bound for sends: pending messages an inbox may hold before a send is rejected'
            cand --json 'Print JSON instead of text (errors too, on stderr)'
            cand --no-cache 'Resolve v2 names by scanning the store, without the name index in the cache directory'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;help'= {
            cand list-agents 'list_agents: v2 lists the caller''s whole tree; v1 lists children or descendants'
            cand send-message 'send_message: v2 any member of the caller''s tree by name or id; v1 a direct child by id'
            cand subagent-send-message 'subagent_send_message: a parent to one of its direct continuable children, by id'
            cand subagent-parent-message 'subagent_parent_message: a child to its direct parent'
            cand interrupt-agent 'interrupt_agent: stop a descendant''s current turn (v2 by name or id; v1 by id)'
            cand wait-agent 'wait_agent (v2): wait for new next-step input in the caller''s own inbox'
            cand call 'Run a model tool by name with its raw JSON arguments'
            cand followup 'Deliver a message as the user to AGENT''s next turn'
            cand steer 'Deliver a message as the user to AGENT''s next step'
            cand interrupt 'Interrupt AGENT''s current turn as the user'
            cand serve 'Hold AGENT live and run CMD once per turn with the claimed messages on stdin'
            cand bridge 'Companion of one DSH process: holds its agents live and hands it their messages (JSON lines on stdin/stdout)'
            cand inbox 'Show AGENT''s pending next-step and next-turn messages and parked state'
            cand claim 'Consume pending input as the agent loop does at a step boundary; print it as JSON'
            cand identity 'Print what the caller is told of itself: its name, who delegated it, its tree''s root'
            cand tree 'Every tree in the store (or the one holding AGENT): hierarchy, state, last turn, pending inbox, tokens'
            cand top 'The tree live in a terminal: each agent''s log, inbox, usage and traces beside it, and followup, steer, interrupt and cancel on keys'
            cand events 'State transitions, one line each: turns started and finished, agents becoming running, idle or inactive, problems, stale messages'
            cand watch 'Budgets on subtrees in tokens or money: an event at 80%, and at 100% an event or an interrupt of every running agent in the subtree'
            cand check 'Verify the whole store; report every problem with its path'
            cand log 'Show AGENT''s transcript: each turn, what the model saw and did, and how the turn ended'
            cand trace 'Show where a message went: sent, claimed, in the transcript, or why not'
            cand export 'The tree as OpenTelemetry traces (OTLP/JSON to a file or stdout, OTLP/HTTP to a collector)'
            cand usage 'Tokens each agent''s model calls used (and their cost, given prices)'
            cand fleet 'Agents on many hosts, over NATS JetStream: the hub, a host''s daemon, its status'
            cand cancel 'Withdraw a pending message before it is delivered'
            cand spawn 'Create a session (a root, or a child with --parent) and print its id'
            cand completions 'Print shell completions'
            cand man 'Print the man page (roff), of the tool or of one command'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'dsh-agents;help;list-agents'= {
        }
        &'dsh-agents;help;send-message'= {
        }
        &'dsh-agents;help;subagent-send-message'= {
        }
        &'dsh-agents;help;subagent-parent-message'= {
        }
        &'dsh-agents;help;interrupt-agent'= {
        }
        &'dsh-agents;help;wait-agent'= {
        }
        &'dsh-agents;help;call'= {
        }
        &'dsh-agents;help;followup'= {
        }
        &'dsh-agents;help;steer'= {
        }
        &'dsh-agents;help;interrupt'= {
        }
        &'dsh-agents;help;serve'= {
        }
        &'dsh-agents;help;bridge'= {
        }
        &'dsh-agents;help;inbox'= {
        }
        &'dsh-agents;help;claim'= {
        }
        &'dsh-agents;help;identity'= {
        }
        &'dsh-agents;help;tree'= {
        }
        &'dsh-agents;help;top'= {
        }
        &'dsh-agents;help;events'= {
        }
        &'dsh-agents;help;watch'= {
        }
        &'dsh-agents;help;check'= {
        }
        &'dsh-agents;help;log'= {
        }
        &'dsh-agents;help;trace'= {
        }
        &'dsh-agents;help;export'= {
        }
        &'dsh-agents;help;usage'= {
        }
        &'dsh-agents;help;fleet'= {
            cand config 'Write the hub''s nats-server configurations, one NKey per host (and admin.nk) and fleet.json'
            cand init 'Create the hub''s streams, buckets and per-host consumers (idempotent)'
            cand run 'Serve this store as a host of the fleet: forward its outbox, take its mail into inboxes, keep receipts'
            cand status 'The fleet as this host last saw it: hosts and when each was last seen, the outbox, every cross-host send and how far it got'
        }
        &'dsh-agents;help;fleet;config'= {
        }
        &'dsh-agents;help;fleet;init'= {
        }
        &'dsh-agents;help;fleet;run'= {
        }
        &'dsh-agents;help;fleet;status'= {
        }
        &'dsh-agents;help;cancel'= {
        }
        &'dsh-agents;help;spawn'= {
        }
        &'dsh-agents;help;completions'= {
        }
        &'dsh-agents;help;man'= {
        }
        &'dsh-agents;help;help'= {
        }
    ]
    $completions[$command]
}
