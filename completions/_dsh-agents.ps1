
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'dsh-agents' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'dsh-agents'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'dsh-agents' {
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'Which tool contract model tools speak (list-agents, send-message, call, …)')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest wait for an inbox lock, in seconds (commands that write an inbox)')
            [CompletionResult]::new('--max-pending', '--max-pending', [CompletionResultType]::ParameterName, 'Admission bound for sends: pending messages an inbox may hold before a send is rejected')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON instead of text (errors too, on stderr)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Resolve v2 names by scanning the store, without the name index in the cache directory')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('list-agents', 'list-agents', [CompletionResultType]::ParameterValue, 'list_agents: v2 lists the caller''s whole tree; v1 lists children or descendants')
            [CompletionResult]::new('send-message', 'send-message', [CompletionResultType]::ParameterValue, 'send_message: v2 any member of the caller''s tree by name or id; v1 a direct child by id')
            [CompletionResult]::new('subagent-send-message', 'subagent-send-message', [CompletionResultType]::ParameterValue, 'subagent_send_message: a parent to one of its direct continuable children, by id')
            [CompletionResult]::new('subagent-parent-message', 'subagent-parent-message', [CompletionResultType]::ParameterValue, 'subagent_parent_message: a child to its direct parent')
            [CompletionResult]::new('interrupt-agent', 'interrupt-agent', [CompletionResultType]::ParameterValue, 'interrupt_agent: stop a descendant''s current turn (v2 by name or id; v1 by id)')
            [CompletionResult]::new('wait-agent', 'wait-agent', [CompletionResultType]::ParameterValue, 'wait_agent (v2): wait for new next-step input in the caller''s own inbox')
            [CompletionResult]::new('call', 'call', [CompletionResultType]::ParameterValue, 'Run a model tool by name with its raw JSON arguments')
            [CompletionResult]::new('followup', 'followup', [CompletionResultType]::ParameterValue, 'Deliver a message as the user to AGENT''s next turn')
            [CompletionResult]::new('steer', 'steer', [CompletionResultType]::ParameterValue, 'Deliver a message as the user to AGENT''s next step')
            [CompletionResult]::new('interrupt', 'interrupt', [CompletionResultType]::ParameterValue, 'Interrupt AGENT''s current turn as the user')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Hold AGENT live and run CMD once per turn with the claimed messages on stdin')
            [CompletionResult]::new('bridge', 'bridge', [CompletionResultType]::ParameterValue, 'Companion of one DSH process: holds its agents live and hands it their messages (JSON lines on stdin/stdout)')
            [CompletionResult]::new('inbox', 'inbox', [CompletionResultType]::ParameterValue, 'Show AGENT''s pending next-step and next-turn messages and parked state')
            [CompletionResult]::new('claim', 'claim', [CompletionResultType]::ParameterValue, 'Consume pending input as the agent loop does at a step boundary; print it as JSON')
            [CompletionResult]::new('identity', 'identity', [CompletionResultType]::ParameterValue, 'Print what the caller is told of itself: its name, who delegated it, its tree''s root')
            [CompletionResult]::new('tree', 'tree', [CompletionResultType]::ParameterValue, 'Every tree in the store (or the one holding AGENT): hierarchy, state, last turn, pending inbox, tokens')
            [CompletionResult]::new('top', 'top', [CompletionResultType]::ParameterValue, 'The tree live in a terminal: each agent''s log, inbox, usage and traces beside it, and followup, steer, interrupt and cancel on keys')
            [CompletionResult]::new('events', 'events', [CompletionResultType]::ParameterValue, 'State transitions, one line each: turns started and finished, agents becoming running, idle or inactive, problems, stale messages')
            [CompletionResult]::new('watch', 'watch', [CompletionResultType]::ParameterValue, 'Budgets on subtrees in tokens or money: an event at 80%, and at 100% an event or an interrupt of every running agent in the subtree')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Verify the whole store; report every problem with its path')
            [CompletionResult]::new('log', 'log', [CompletionResultType]::ParameterValue, 'Show AGENT''s transcript: each turn, what the model saw and did, and how the turn ended')
            [CompletionResult]::new('trace', 'trace', [CompletionResultType]::ParameterValue, 'Show where a message went: sent, claimed, in the transcript, or why not')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'The tree as OpenTelemetry traces (OTLP/JSON to a file or stdout, OTLP/HTTP to a collector)')
            [CompletionResult]::new('usage', 'usage', [CompletionResultType]::ParameterValue, 'Tokens each agent''s model calls used (and their cost, given prices)')
            [CompletionResult]::new('fleet', 'fleet', [CompletionResultType]::ParameterValue, 'Agents on many hosts, over NATS JetStream: the hub, a host''s daemon, its status')
            [CompletionResult]::new('cancel', 'cancel', [CompletionResultType]::ParameterValue, 'Withdraw a pending message before it is delivered')
            [CompletionResult]::new('spawn', 'spawn', [CompletionResultType]::ParameterValue, 'Create a session (a root, or a child with --parent) and print its id')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print shell completions')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print the man page (roff), of the tool or of one command')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'dsh-agents;list-agents' {
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'The calling agent: a Session id, a unique prefix (>= 4 characters), or a name path (reviewer/checker; v2 only: rc.8 takes a caller id as it is)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'v1 only: children (default) or descendants')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'Which tool contract model tools speak (list-agents, send-message, call, …)')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest wait for an inbox lock, in seconds (commands that write an inbox)')
            [CompletionResult]::new('--max-pending', '--max-pending', [CompletionResultType]::ParameterName, 'Admission bound for sends: pending messages an inbox may hold before a send is rejected')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON instead of text (errors too, on stderr)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Resolve v2 names by scanning the store, without the name index in the cache directory')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'dsh-agents;send-message' {
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'The calling agent: a Session id, a unique prefix (>= 4 characters), or a name path (reviewer/checker; v2 only: rc.8 takes a caller id as it is)')
            [CompletionResult]::new('--id', '--id', [CompletionResultType]::ParameterName, 'Message id: repeating a send with the same id writes nothing and returns the same receipt')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'Which tool contract model tools speak (list-agents, send-message, call, …)')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest wait for an inbox lock, in seconds (commands that write an inbox)')
            [CompletionResult]::new('--max-pending', '--max-pending', [CompletionResultType]::ParameterName, 'Admission bound for sends: pending messages an inbox may hold before a send is rejected')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON instead of text (errors too, on stderr)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Resolve v2 names by scanning the store, without the name index in the cache directory')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'dsh-agents;subagent-send-message' {
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'The calling agent: a Session id, a unique prefix (>= 4 characters), or a name path (reviewer/checker; v2 only: rc.8 takes a caller id as it is)')
            [CompletionResult]::new('--id', '--id', [CompletionResultType]::ParameterName, 'Message id: repeating a send with the same id writes nothing and returns the same receipt')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'Which tool contract model tools speak (list-agents, send-message, call, …)')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest wait for an inbox lock, in seconds (commands that write an inbox)')
            [CompletionResult]::new('--max-pending', '--max-pending', [CompletionResultType]::ParameterName, 'Admission bound for sends: pending messages an inbox may hold before a send is rejected')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON instead of text (errors too, on stderr)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Resolve v2 names by scanning the store, without the name index in the cache directory')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'dsh-agents;subagent-parent-message' {
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'The calling agent: a Session id, a unique prefix (>= 4 characters), or a name path (reviewer/checker; v2 only: rc.8 takes a caller id as it is)')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'followup: the parent''s next turn; steer: its next step')
            [CompletionResult]::new('--id', '--id', [CompletionResultType]::ParameterName, 'Message id: repeating a send with the same id writes nothing and returns the same receipt')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'Which tool contract model tools speak (list-agents, send-message, call, …)')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest wait for an inbox lock, in seconds (commands that write an inbox)')
            [CompletionResult]::new('--max-pending', '--max-pending', [CompletionResultType]::ParameterName, 'Admission bound for sends: pending messages an inbox may hold before a send is rejected')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON instead of text (errors too, on stderr)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Resolve v2 names by scanning the store, without the name index in the cache directory')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'dsh-agents;interrupt-agent' {
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'The calling agent: a Session id, a unique prefix (>= 4 characters), or a name path (reviewer/checker; v2 only: rc.8 takes a caller id as it is)')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'Which tool contract model tools speak (list-agents, send-message, call, …)')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest wait for an inbox lock, in seconds (commands that write an inbox)')
            [CompletionResult]::new('--max-pending', '--max-pending', [CompletionResultType]::ParameterName, 'Admission bound for sends: pending messages an inbox may hold before a send is rejected')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON instead of text (errors too, on stderr)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Resolve v2 names by scanning the store, without the name index in the cache directory')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'dsh-agents;wait-agent' {
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'The calling agent: a Session id, a unique prefix (>= 4 characters), or a name path (reviewer/checker; v2 only: rc.8 takes a caller id as it is)')
            [CompletionResult]::new('--timeout-ms', '--timeout-ms', [CompletionResultType]::ParameterName, 'Timeout in milliseconds, 10000 through 3600000')
            [CompletionResult]::new('--call', '--call', [CompletionResultType]::ParameterName, 'The root tool call: waits under one call report each id once')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'Which tool contract model tools speak (list-agents, send-message, call, …)')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest wait for an inbox lock, in seconds (commands that write an inbox)')
            [CompletionResult]::new('--max-pending', '--max-pending', [CompletionResultType]::ParameterName, 'Admission bound for sends: pending messages an inbox may hold before a send is rejected')
            [CompletionResult]::new('--poll', '--poll', [CompletionResultType]::ParameterName, 'Poll instead of using file notification')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON instead of text (errors too, on stderr)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Resolve v2 names by scanning the store, without the name index in the cache directory')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'dsh-agents;call' {
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'The calling agent: a Session id, a unique prefix (>= 4 characters), or a name path (reviewer/checker; v2 only: rc.8 takes a caller id as it is)')
            [CompletionResult]::new('--id', '--id', [CompletionResultType]::ParameterName, 'Message id: repeating a send with the same id writes nothing and returns the same receipt')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'Which tool contract model tools speak (list-agents, send-message, call, …)')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest wait for an inbox lock, in seconds (commands that write an inbox)')
            [CompletionResult]::new('--max-pending', '--max-pending', [CompletionResultType]::ParameterName, 'Admission bound for sends: pending messages an inbox may hold before a send is rejected')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON instead of text (errors too, on stderr)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Resolve v2 names by scanning the store, without the name index in the cache directory')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'dsh-agents;followup' {
            [CompletionResult]::new('--id', '--id', [CompletionResultType]::ParameterName, 'Message id: repeating a send with the same id writes nothing and returns the same receipt')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait until the message is in the target''s inbox (accepted) or in its transcript (delivered): for HOST:AGENT on another host; a local send is accepted when it returns')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'With --wait: the most seconds to wait (the message stays queued after it)')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'Which tool contract model tools speak (list-agents, send-message, call, …)')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest wait for an inbox lock, in seconds (commands that write an inbox)')
            [CompletionResult]::new('--max-pending', '--max-pending', [CompletionResultType]::ParameterName, 'Admission bound for sends: pending messages an inbox may hold before a send is rejected')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON instead of text (errors too, on stderr)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Resolve v2 names by scanning the store, without the name index in the cache directory')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'dsh-agents;steer' {
            [CompletionResult]::new('--id', '--id', [CompletionResultType]::ParameterName, 'Message id: repeating a send with the same id writes nothing and returns the same receipt')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait until the message is in the target''s inbox (accepted) or in its transcript (delivered): for HOST:AGENT on another host; a local send is accepted when it returns')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'With --wait: the most seconds to wait (the message stays queued after it)')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'Which tool contract model tools speak (list-agents, send-message, call, …)')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest wait for an inbox lock, in seconds (commands that write an inbox)')
            [CompletionResult]::new('--max-pending', '--max-pending', [CompletionResultType]::ParameterName, 'Admission bound for sends: pending messages an inbox may hold before a send is rejected')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON instead of text (errors too, on stderr)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Resolve v2 names by scanning the store, without the name index in the cache directory')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'dsh-agents;interrupt' {
            [CompletionResult]::new('--expires', '--expires', [CompletionResultType]::ParameterName, 'For HOST:AGENT on another host: apply the interrupt only if it reaches that host within this many seconds (later, its receipt says expired)')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'Which tool contract model tools speak (list-agents, send-message, call, …)')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest wait for an inbox lock, in seconds (commands that write an inbox)')
            [CompletionResult]::new('--max-pending', '--max-pending', [CompletionResultType]::ParameterName, 'Admission bound for sends: pending messages an inbox may hold before a send is rejected')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON instead of text (errors too, on stderr)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Resolve v2 names by scanning the store, without the name index in the cache directory')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'dsh-agents;serve' {
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'The calling agent: a Session id, a unique prefix (>= 4 characters), or a name path (reviewer/checker; v2 only: rc.8 takes a caller id as it is)')
            [CompletionResult]::new('--grace-ms', '--grace-ms', [CompletionResultType]::ParameterName, 'Milliseconds between SIGTERM and SIGKILL when a turn is stopped')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'Which tool contract model tools speak (list-agents, send-message, call, …)')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest wait for an inbox lock, in seconds (commands that write an inbox)')
            [CompletionResult]::new('--max-pending', '--max-pending', [CompletionResultType]::ParameterName, 'Admission bound for sends: pending messages an inbox may hold before a send is rejected')
            [CompletionResult]::new('--once', '--once', [CompletionResultType]::ParameterName, 'Exit when nothing runnable is left')
            [CompletionResult]::new('--poll', '--poll', [CompletionResultType]::ParameterName, 'Poll instead of using file notification')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Do not log each turn on stderr')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON instead of text (errors too, on stderr)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Resolve v2 names by scanning the store, without the name index in the cache directory')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'dsh-agents;bridge' {
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'Which tool contract model tools speak (list-agents, send-message, call, …)')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest wait for an inbox lock, in seconds (commands that write an inbox)')
            [CompletionResult]::new('--max-pending', '--max-pending', [CompletionResultType]::ParameterName, 'Admission bound for sends: pending messages an inbox may hold before a send is rejected')
            [CompletionResult]::new('--check', '--check', [CompletionResultType]::ParameterName, 'Only check that the store can be the bridge''s (a readable directory, or not created yet), print the version, and exit')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON instead of text (errors too, on stderr)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Resolve v2 names by scanning the store, without the name index in the cache directory')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'dsh-agents;inbox' {
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'Which tool contract model tools speak (list-agents, send-message, call, …)')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest wait for an inbox lock, in seconds (commands that write an inbox)')
            [CompletionResult]::new('--max-pending', '--max-pending', [CompletionResultType]::ParameterName, 'Admission bound for sends: pending messages an inbox may hold before a send is rejected')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON instead of text (errors too, on stderr)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Resolve v2 names by scanning the store, without the name index in the cache directory')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'dsh-agents;claim' {
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'The calling agent: a Session id, a unique prefix (>= 4 characters), or a name path (reviewer/checker; v2 only: rc.8 takes a caller id as it is)')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'Which tool contract model tools speak (list-agents, send-message, call, …)')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest wait for an inbox lock, in seconds (commands that write an inbox)')
            [CompletionResult]::new('--max-pending', '--max-pending', [CompletionResultType]::ParameterName, 'Admission bound for sends: pending messages an inbox may hold before a send is rejected')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON instead of text (errors too, on stderr)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Resolve v2 names by scanning the store, without the name index in the cache directory')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'dsh-agents;identity' {
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'The calling agent: a Session id, a unique prefix (>= 4 characters), or a name path (reviewer/checker; v2 only: rc.8 takes a caller id as it is)')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'Which tool contract model tools speak (list-agents, send-message, call, …)')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest wait for an inbox lock, in seconds (commands that write an inbox)')
            [CompletionResult]::new('--max-pending', '--max-pending', [CompletionResultType]::ParameterName, 'Admission bound for sends: pending messages an inbox may hold before a send is rejected')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON instead of text (errors too, on stderr)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Resolve v2 names by scanning the store, without the name index in the cache directory')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'dsh-agents;tree' {
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Fit rows to N columns [default: the terminal''s width, else 100]')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'Which tool contract model tools speak (list-agents, send-message, call, …)')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest wait for an inbox lock, in seconds (commands that write an inbox)')
            [CompletionResult]::new('--max-pending', '--max-pending', [CompletionResultType]::ParameterName, 'Admission bound for sends: pending messages an inbox may hold before a send is rejected')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Also list root sessions that have no subagents, each as its own tree')
            [CompletionResult]::new('--no-usage', '--no-usage', [CompletionResultType]::ParameterName, 'Leave out the TOKENS column (the tokens of each agent and those below it)')
            [CompletionResult]::new('--live', '--live', [CompletionResultType]::ParameterName, 'Only agents a resident process holds (and the agents above them)')
            [CompletionResult]::new('--problems', '--problems', [CompletionResultType]::ParameterName, 'Only agents with a diagnostic or an unreadable inbox (and the agents above them)')
            [CompletionResult]::new('--watch', '--watch', [CompletionResultType]::ParameterName, 'Redraw whenever the store changes, until Ctrl-C')
            [CompletionResult]::new('--fleet', '--fleet', [CompletionResultType]::ParameterName, 'Also every other host''s trees, as this host''s fleet daemon last heard them')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON instead of text (errors too, on stderr)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Resolve v2 names by scanning the store, without the name index in the cache directory')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'dsh-agents;top' {
            [CompletionResult]::new('--budget', '--budget', [CompletionResultType]::ParameterName, 'Budgets to show: an agent''s tokens turn yellow at 80% of its subtree''s budget, red at 100% (the SPEC of `watch --budget`)')
            [CompletionResult]::new('--prices', '--prices', [CompletionResultType]::ParameterName, 'A price table (JSON, as `usage --prices` reads) for money budgets')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'Which tool contract model tools speak (list-agents, send-message, call, …)')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest wait for an inbox lock, in seconds (commands that write an inbox)')
            [CompletionResult]::new('--max-pending', '--max-pending', [CompletionResultType]::ParameterName, 'Admission bound for sends: pending messages an inbox may hold before a send is rejected')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON instead of text (errors too, on stderr)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Resolve v2 names by scanning the store, without the name index in the cache directory')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'dsh-agents;events' {
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'First the turns the logs record since this time: epoch ms, a UTC date (2026-12-01[T08:30]) or an age (30m, 2h, 7d)')
            [CompletionResult]::new('--stale-after', '--stale-after', [CompletionResultType]::ParameterName, 'With --follow: report each message pending longer than this (90s, 10m, 2h), once')
            [CompletionResult]::new('--exec', '--exec', [CompletionResultType]::ParameterName, 'Run CMD (with sh -c) for each event, the event as JSON on its standard input; a failing CMD is reported, the stream goes on')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'Which tool contract model tools speak (list-agents, send-message, call, …)')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest wait for an inbox lock, in seconds (commands that write an inbox)')
            [CompletionResult]::new('--max-pending', '--max-pending', [CompletionResultType]::ParameterName, 'Admission bound for sends: pending messages an inbox may hold before a send is rejected')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Keep printing transitions as they happen, until Ctrl-C')
            [CompletionResult]::new('--follow', '--follow', [CompletionResultType]::ParameterName, 'Keep printing transitions as they happen, until Ctrl-C')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON instead of text (errors too, on stderr)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Resolve v2 names by scanning the store, without the name index in the cache directory')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'dsh-agents;watch' {
            [CompletionResult]::new('--budget', '--budget', [CompletionResultType]::ParameterName, 'AGENT=LIMIT[,AGENT=LIMIT...]: LIMIT in tokens (200000, 200k, 1.5m) or money ($5, $0.50, with --prices)')
            [CompletionResult]::new('--prices', '--prices', [CompletionResultType]::ParameterName, 'A price table (JSON, as `usage --prices` reads) for money budgets')
            [CompletionResult]::new('--on-exceed', '--on-exceed', [CompletionResultType]::ParameterName, 'At 100%: report it, or also interrupt every running agent in the subtree')
            [CompletionResult]::new('--exec', '--exec', [CompletionResultType]::ParameterName, 'Run CMD (with sh -c) for each event, the event as JSON on its standard input; a failing CMD is reported, the watch goes on')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'Which tool contract model tools speak (list-agents, send-message, call, …)')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest wait for an inbox lock, in seconds (commands that write an inbox)')
            [CompletionResult]::new('--max-pending', '--max-pending', [CompletionResultType]::ParameterName, 'Admission bound for sends: pending messages an inbox may hold before a send is rejected')
            [CompletionResult]::new('--once', '--once', [CompletionResultType]::ParameterName, 'Check once and exit, instead of following the store until Ctrl-C')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON instead of text (errors too, on stderr)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Resolve v2 names by scanning the store, without the name index in the cache directory')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'dsh-agents;check' {
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'Which tool contract model tools speak (list-agents, send-message, call, …)')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest wait for an inbox lock, in seconds (commands that write an inbox)')
            [CompletionResult]::new('--max-pending', '--max-pending', [CompletionResultType]::ParameterName, 'Admission bound for sends: pending messages an inbox may hold before a send is rejected')
            [CompletionResult]::new('--fleet', '--fleet', [CompletionResultType]::ParameterName, 'Also the problems the other hosts of the fleet report in their session rows')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON instead of text (errors too, on stderr)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Resolve v2 names by scanning the store, without the name index in the cache directory')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'dsh-agents;log' {
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Only the last N turns (N at least 1)')
            [CompletionResult]::new('--last', '--last', [CompletionResultType]::ParameterName, 'Only the last N turns (N at least 1)')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'Which tool contract model tools speak (list-agents, send-message, call, …)')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest wait for an inbox lock, in seconds (commands that write an inbox)')
            [CompletionResult]::new('--max-pending', '--max-pending', [CompletionResultType]::ParameterName, 'Admission bound for sends: pending messages an inbox may hold before a send is rejected')
            [CompletionResult]::new('--reasoning', '--reasoning', [CompletionResultType]::ParameterName, 'Show reasoning text instead of folding it')
            [CompletionResult]::new('--full', '--full', [CompletionResultType]::ParameterName, 'Show long messages, tool results and runtime context in full')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Keep printing new events until the session settles (or Ctrl-C)')
            [CompletionResult]::new('--follow', '--follow', [CompletionResultType]::ParameterName, 'Keep printing new events until the session settles (or Ctrl-C)')
            [CompletionResult]::new('--poll', '--poll', [CompletionResultType]::ParameterName, 'With --follow: poll instead of using file notification')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON instead of text (errors too, on stderr)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Resolve v2 names by scanning the store, without the name index in the cache directory')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'dsh-agents;trace' {
            [CompletionResult]::new('--to', '--to', [CompletionResultType]::ParameterName, 'The target agent, HOST:AGENT on another host of the fleet [default: search every inbox for the id]')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'Which tool contract model tools speak (list-agents, send-message, call, …)')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest wait for an inbox lock, in seconds (commands that write an inbox)')
            [CompletionResult]::new('--max-pending', '--max-pending', [CompletionResultType]::ParameterName, 'Admission bound for sends: pending messages an inbox may hold before a send is rejected')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON instead of text (errors too, on stderr)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Resolve v2 names by scanning the store, without the name index in the cache directory')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'dsh-agents;export' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write OTLP/JSON to FILE (- is standard output) [default: standard output]')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write OTLP/JSON to FILE (- is standard output) [default: standard output]')
            [CompletionResult]::new('--endpoint', '--endpoint', [CompletionResultType]::ParameterName, 'Send OTLP/HTTP (protobuf) to a collector: http://HOST:PORT (the path /v1/traces is added when the URL has none)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'With --endpoint: the most seconds the whole send may take (connect, request, answer)')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'Which tool contract model tools speak (list-agents, send-message, call, …)')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest wait for an inbox lock, in seconds (commands that write an inbox)')
            [CompletionResult]::new('--max-pending', '--max-pending', [CompletionResultType]::ParameterName, 'Admission bound for sends: pending messages an inbox may hold before a send is rejected')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every tree in the store')
            [CompletionResult]::new('--otlp', '--otlp', [CompletionResultType]::ParameterName, 'The format: OpenTelemetry''s OTLP (the only one)')
            [CompletionResult]::new('--content', '--content', [CompletionResultType]::ParameterName, 'Include message text and tool arguments and results')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON instead of text (errors too, on stderr)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Resolve v2 names by scanning the store, without the name index in the cache directory')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'dsh-agents;usage' {
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only calls since this time: epoch ms, a UTC date (2026-12-01[T08:30]) or an age (30m, 2h, 7d)')
            [CompletionResult]::new('--by', '--by', [CompletionResultType]::ParameterName, 'Group the rows')
            [CompletionResult]::new('--prices', '--prices', [CompletionResultType]::ParameterName, 'A JSON price table (per million tokens) to add a COST column')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'Which tool contract model tools speak (list-agents, send-message, call, …)')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest wait for an inbox lock, in seconds (commands that write an inbox)')
            [CompletionResult]::new('--max-pending', '--max-pending', [CompletionResultType]::ParameterName, 'Admission bound for sends: pending messages an inbox may hold before a send is rejected')
            [CompletionResult]::new('--tree', '--tree', [CompletionResultType]::ParameterName, 'With AGENT: its whole subtree, each row with its subtree''s total')
            [CompletionResult]::new('--fleet', '--fleet', [CompletionResultType]::ParameterName, 'Each host of the fleet''s totals, from the session rows the hosts'' daemons wrote')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON instead of text (errors too, on stderr)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Resolve v2 names by scanning the store, without the name index in the cache directory')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'dsh-agents;fleet' {
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'Which tool contract model tools speak (list-agents, send-message, call, …)')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest wait for an inbox lock, in seconds (commands that write an inbox)')
            [CompletionResult]::new('--max-pending', '--max-pending', [CompletionResultType]::ParameterName, 'Admission bound for sends: pending messages an inbox may hold before a send is rejected')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON instead of text (errors too, on stderr)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Resolve v2 names by scanning the store, without the name index in the cache directory')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Write the hub''s nats-server configurations, one NKey per host (and admin.nk) and fleet.json')
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Create the hub''s streams, buckets and per-host consumers (idempotent)')
            [CompletionResult]::new('run', 'run', [CompletionResultType]::ParameterValue, 'Serve this store as a host of the fleet: forward its outbox, take its mail into inboxes, keep receipts')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'The fleet as this host last saw it: hosts and when each was last seen, the outbox, every cross-host send and how far it got')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'dsh-agents;fleet;config' {
            [CompletionResult]::new('--hosts', '--hosts', [CompletionResultType]::ParameterName, 'The fleet''s host names (ASCII letters, digits, - and _)')
            [CompletionResult]::new('--out', '--out', [CompletionResultType]::ParameterName, 'Where the files go')
            [CompletionResult]::new('--nodes', '--nodes', [CompletionResultType]::ParameterName, 'Hub nodes: 3 for a fleet that survives a node, 1 to try it')
            [CompletionResult]::new('--port', '--port', [CompletionResultType]::ParameterName, 'The first node''s client port (the next nodes take the next ones; cluster ports are 100 above)')
            [CompletionResult]::new('--addresses', '--addresses', [CompletionResultType]::ParameterName, 'Where the nodes listen and hosts dial them: one address for all (consecutive ports), or one a node (each on --port)')
            [CompletionResult]::new('--tls-cert', '--tls-cert', [CompletionResultType]::ParameterName, 'TLS on the client and route ports: the nodes'' certificate (PEM; valid for 127.0.0.1 or the names hosts use)')
            [CompletionResult]::new('--tls-key', '--tls-key', [CompletionResultType]::ParameterName, 'With --tls-cert: its private key (PEM)')
            [CompletionResult]::new('--tls-ca', '--tls-ca', [CompletionResultType]::ParameterName, 'With --tls-cert: the CA certificate that signed it (hosts pass it to --tls-ca)')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'Which tool contract model tools speak (list-agents, send-message, call, …)')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest wait for an inbox lock, in seconds (commands that write an inbox)')
            [CompletionResult]::new('--max-pending', '--max-pending', [CompletionResultType]::ParameterName, 'Admission bound for sends: pending messages an inbox may hold before a send is rejected')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON instead of text (errors too, on stderr)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Resolve v2 names by scanning the store, without the name index in the cache directory')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'dsh-agents;fleet;init' {
            [CompletionResult]::new('--nats', '--nats', [CompletionResultType]::ParameterName, 'The hub''s URLs, comma-separated')
            [CompletionResult]::new('--creds', '--creds', [CompletionResultType]::ParameterName, 'The admin NKey seed file (`fleet config` writes admin.nk)')
            [CompletionResult]::new('--hosts', '--hosts', [CompletionResultType]::ParameterName, 'The fleet''s hosts [default: those `fleet config` wrote into fleet.json beside --creds]')
            [CompletionResult]::new('--replicas', '--replicas', [CompletionResultType]::ParameterName, 'Copies of every stream and bucket (the hub''s node count, at most 5)')
            [CompletionResult]::new('--ack-wait', '--ack-wait', [CompletionResultType]::ParameterName, 'Seconds a mail taken by a host waits for its ack before the hub hands it out again')
            [CompletionResult]::new('--dedup-window', '--dedup-window', [CompletionResultType]::ParameterName, 'Seconds the hub drops a republished mail by its id (past it the target''s inbox still does)')
            [CompletionResult]::new('--tls-ca', '--tls-ca', [CompletionResultType]::ParameterName, 'A CA certificate: speak TLS to the hub and trust only it')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'Which tool contract model tools speak (list-agents, send-message, call, …)')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest wait for an inbox lock, in seconds (commands that write an inbox)')
            [CompletionResult]::new('--max-pending', '--max-pending', [CompletionResultType]::ParameterName, 'Admission bound for sends: pending messages an inbox may hold before a send is rejected')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON instead of text (errors too, on stderr)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Resolve v2 names by scanning the store, without the name index in the cache directory')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'dsh-agents;fleet;run' {
            [CompletionResult]::new('--host', '--host', [CompletionResultType]::ParameterName, 'This host''s name in the fleet (ASCII letters, digits, - and _)')
            [CompletionResult]::new('--nats', '--nats', [CompletionResultType]::ParameterName, 'The hub''s URLs, comma-separated')
            [CompletionResult]::new('--creds', '--creds', [CompletionResultType]::ParameterName, 'This host''s NKey seed file (`fleet config` writes HOST.nk)')
            [CompletionResult]::new('--tls-ca', '--tls-ca', [CompletionResultType]::ParameterName, 'A CA certificate: speak TLS to the hub and trust only it')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'Which tool contract model tools speak (list-agents, send-message, call, …)')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest wait for an inbox lock, in seconds (commands that write an inbox)')
            [CompletionResult]::new('--max-pending', '--max-pending', [CompletionResultType]::ParameterName, 'Admission bound for sends: pending messages an inbox may hold before a send is rejected')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON instead of text (errors too, on stderr)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Resolve v2 names by scanning the store, without the name index in the cache directory')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'dsh-agents;fleet;status' {
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'Which tool contract model tools speak (list-agents, send-message, call, …)')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest wait for an inbox lock, in seconds (commands that write an inbox)')
            [CompletionResult]::new('--max-pending', '--max-pending', [CompletionResultType]::ParameterName, 'Admission bound for sends: pending messages an inbox may hold before a send is rejected')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON instead of text (errors too, on stderr)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Resolve v2 names by scanning the store, without the name index in the cache directory')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'dsh-agents;fleet;help' {
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Write the hub''s nats-server configurations, one NKey per host (and admin.nk) and fleet.json')
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Create the hub''s streams, buckets and per-host consumers (idempotent)')
            [CompletionResult]::new('run', 'run', [CompletionResultType]::ParameterValue, 'Serve this store as a host of the fleet: forward its outbox, take its mail into inboxes, keep receipts')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'The fleet as this host last saw it: hosts and when each was last seen, the outbox, every cross-host send and how far it got')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'dsh-agents;fleet;help;config' {
            break
        }
        'dsh-agents;fleet;help;init' {
            break
        }
        'dsh-agents;fleet;help;run' {
            break
        }
        'dsh-agents;fleet;help;status' {
            break
        }
        'dsh-agents;fleet;help;help' {
            break
        }
        'dsh-agents;cancel' {
            [CompletionResult]::new('--to', '--to', [CompletionResultType]::ParameterName, 'The target agent, HOST:AGENT for one on another host of the fleet [default: search every inbox for the id]')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait until the message is in the target''s inbox (accepted) or in its transcript (delivered): for HOST:AGENT on another host; a local send is accepted when it returns')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'With --wait: the most seconds to wait (the message stays queued after it)')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'Which tool contract model tools speak (list-agents, send-message, call, …)')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest wait for an inbox lock, in seconds (commands that write an inbox)')
            [CompletionResult]::new('--max-pending', '--max-pending', [CompletionResultType]::ParameterName, 'Admission bound for sends: pending messages an inbox may hold before a send is rejected')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON instead of text (errors too, on stderr)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Resolve v2 names by scanning the store, without the name index in the cache directory')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'dsh-agents;spawn' {
            [CompletionResult]::new('--parent', '--parent', [CompletionResultType]::ParameterName, 'Parent Session id or unique prefix; omit to create a root')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'Agent name (1-64 of [A-Za-z0-9._-], not "lead", "." or "..", unique among siblings)')
            [CompletionResult]::new('--label', '--label', [CompletionResultType]::ParameterName, 'Creation label (the description list_agents shows)')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Child mode')
            [CompletionResult]::new('--prompt', '--prompt', [CompletionResultType]::ParameterName, 'The initial prompt, recorded as the first turn')
            [CompletionResult]::new('--id', '--id', [CompletionResultType]::ParameterName, 'Session id [default: a random UUID]')
            [CompletionResult]::new('--created-at', '--created-at', [CompletionResultType]::ParameterName, 'Creation time in epoch milliseconds [default: now]')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Project directory (absolute); children inherit the parent''s by default')
            [CompletionResult]::new('--compression', '--compression', [CompletionResultType]::ParameterName, 'Encoding for a new store (an existing store keeps its own)')
            [CompletionResult]::new('--provider', '--provider', [CompletionResultType]::ParameterName, 'Subagent provider recorded in the descriptor')
            [CompletionResult]::new('--format-version', '--format-version', [CompletionResultType]::ParameterName, 'Log format generation to write: 0 (DSH 0.1.0-rc.8, session.jsonl) to 4 (session.v4.jsonl) [default: the store''s newest, else 0]')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'Which tool contract model tools speak (list-agents, send-message, call, …)')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest wait for an inbox lock, in seconds (commands that write an inbox)')
            [CompletionResult]::new('--max-pending', '--max-pending', [CompletionResultType]::ParameterName, 'Admission bound for sends: pending messages an inbox may hold before a send is rejected')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON instead of text (errors too, on stderr)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Resolve v2 names by scanning the store, without the name index in the cache directory')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'dsh-agents;completions' {
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'Which tool contract model tools speak (list-agents, send-message, call, …)')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest wait for an inbox lock, in seconds (commands that write an inbox)')
            [CompletionResult]::new('--max-pending', '--max-pending', [CompletionResultType]::ParameterName, 'Admission bound for sends: pending messages an inbox may hold before a send is rejected')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON instead of text (errors too, on stderr)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Resolve v2 names by scanning the store, without the name index in the cache directory')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'dsh-agents;man' {
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'Which tool contract model tools speak (list-agents, send-message, call, …)')
            [CompletionResult]::new('--lock-timeout', '--lock-timeout', [CompletionResultType]::ParameterName, 'Longest wait for an inbox lock, in seconds (commands that write an inbox)')
            [CompletionResult]::new('--max-pending', '--max-pending', [CompletionResultType]::ParameterName, 'Admission bound for sends: pending messages an inbox may hold before a send is rejected')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON instead of text (errors too, on stderr)')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Resolve v2 names by scanning the store, without the name index in the cache directory')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'dsh-agents;help' {
            [CompletionResult]::new('list-agents', 'list-agents', [CompletionResultType]::ParameterValue, 'list_agents: v2 lists the caller''s whole tree; v1 lists children or descendants')
            [CompletionResult]::new('send-message', 'send-message', [CompletionResultType]::ParameterValue, 'send_message: v2 any member of the caller''s tree by name or id; v1 a direct child by id')
            [CompletionResult]::new('subagent-send-message', 'subagent-send-message', [CompletionResultType]::ParameterValue, 'subagent_send_message: a parent to one of its direct continuable children, by id')
            [CompletionResult]::new('subagent-parent-message', 'subagent-parent-message', [CompletionResultType]::ParameterValue, 'subagent_parent_message: a child to its direct parent')
            [CompletionResult]::new('interrupt-agent', 'interrupt-agent', [CompletionResultType]::ParameterValue, 'interrupt_agent: stop a descendant''s current turn (v2 by name or id; v1 by id)')
            [CompletionResult]::new('wait-agent', 'wait-agent', [CompletionResultType]::ParameterValue, 'wait_agent (v2): wait for new next-step input in the caller''s own inbox')
            [CompletionResult]::new('call', 'call', [CompletionResultType]::ParameterValue, 'Run a model tool by name with its raw JSON arguments')
            [CompletionResult]::new('followup', 'followup', [CompletionResultType]::ParameterValue, 'Deliver a message as the user to AGENT''s next turn')
            [CompletionResult]::new('steer', 'steer', [CompletionResultType]::ParameterValue, 'Deliver a message as the user to AGENT''s next step')
            [CompletionResult]::new('interrupt', 'interrupt', [CompletionResultType]::ParameterValue, 'Interrupt AGENT''s current turn as the user')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Hold AGENT live and run CMD once per turn with the claimed messages on stdin')
            [CompletionResult]::new('bridge', 'bridge', [CompletionResultType]::ParameterValue, 'Companion of one DSH process: holds its agents live and hands it their messages (JSON lines on stdin/stdout)')
            [CompletionResult]::new('inbox', 'inbox', [CompletionResultType]::ParameterValue, 'Show AGENT''s pending next-step and next-turn messages and parked state')
            [CompletionResult]::new('claim', 'claim', [CompletionResultType]::ParameterValue, 'Consume pending input as the agent loop does at a step boundary; print it as JSON')
            [CompletionResult]::new('identity', 'identity', [CompletionResultType]::ParameterValue, 'Print what the caller is told of itself: its name, who delegated it, its tree''s root')
            [CompletionResult]::new('tree', 'tree', [CompletionResultType]::ParameterValue, 'Every tree in the store (or the one holding AGENT): hierarchy, state, last turn, pending inbox, tokens')
            [CompletionResult]::new('top', 'top', [CompletionResultType]::ParameterValue, 'The tree live in a terminal: each agent''s log, inbox, usage and traces beside it, and followup, steer, interrupt and cancel on keys')
            [CompletionResult]::new('events', 'events', [CompletionResultType]::ParameterValue, 'State transitions, one line each: turns started and finished, agents becoming running, idle or inactive, problems, stale messages')
            [CompletionResult]::new('watch', 'watch', [CompletionResultType]::ParameterValue, 'Budgets on subtrees in tokens or money: an event at 80%, and at 100% an event or an interrupt of every running agent in the subtree')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Verify the whole store; report every problem with its path')
            [CompletionResult]::new('log', 'log', [CompletionResultType]::ParameterValue, 'Show AGENT''s transcript: each turn, what the model saw and did, and how the turn ended')
            [CompletionResult]::new('trace', 'trace', [CompletionResultType]::ParameterValue, 'Show where a message went: sent, claimed, in the transcript, or why not')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'The tree as OpenTelemetry traces (OTLP/JSON to a file or stdout, OTLP/HTTP to a collector)')
            [CompletionResult]::new('usage', 'usage', [CompletionResultType]::ParameterValue, 'Tokens each agent''s model calls used (and their cost, given prices)')
            [CompletionResult]::new('fleet', 'fleet', [CompletionResultType]::ParameterValue, 'Agents on many hosts, over NATS JetStream: the hub, a host''s daemon, its status')
            [CompletionResult]::new('cancel', 'cancel', [CompletionResultType]::ParameterValue, 'Withdraw a pending message before it is delivered')
            [CompletionResult]::new('spawn', 'spawn', [CompletionResultType]::ParameterValue, 'Create a session (a root, or a child with --parent) and print its id')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print shell completions')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print the man page (roff), of the tool or of one command')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'dsh-agents;help;list-agents' {
            break
        }
        'dsh-agents;help;send-message' {
            break
        }
        'dsh-agents;help;subagent-send-message' {
            break
        }
        'dsh-agents;help;subagent-parent-message' {
            break
        }
        'dsh-agents;help;interrupt-agent' {
            break
        }
        'dsh-agents;help;wait-agent' {
            break
        }
        'dsh-agents;help;call' {
            break
        }
        'dsh-agents;help;followup' {
            break
        }
        'dsh-agents;help;steer' {
            break
        }
        'dsh-agents;help;interrupt' {
            break
        }
        'dsh-agents;help;serve' {
            break
        }
        'dsh-agents;help;bridge' {
            break
        }
        'dsh-agents;help;inbox' {
            break
        }
        'dsh-agents;help;claim' {
            break
        }
        'dsh-agents;help;identity' {
            break
        }
        'dsh-agents;help;tree' {
            break
        }
        'dsh-agents;help;top' {
            break
        }
        'dsh-agents;help;events' {
            break
        }
        'dsh-agents;help;watch' {
            break
        }
        'dsh-agents;help;check' {
            break
        }
        'dsh-agents;help;log' {
            break
        }
        'dsh-agents;help;trace' {
            break
        }
        'dsh-agents;help;export' {
            break
        }
        'dsh-agents;help;usage' {
            break
        }
        'dsh-agents;help;fleet' {
            [CompletionResult]::new('config', 'config', [CompletionResultType]::ParameterValue, 'Write the hub''s nats-server configurations, one NKey per host (and admin.nk) and fleet.json')
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Create the hub''s streams, buckets and per-host consumers (idempotent)')
            [CompletionResult]::new('run', 'run', [CompletionResultType]::ParameterValue, 'Serve this store as a host of the fleet: forward its outbox, take its mail into inboxes, keep receipts')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'The fleet as this host last saw it: hosts and when each was last seen, the outbox, every cross-host send and how far it got')
            break
        }
        'dsh-agents;help;fleet;config' {
            break
        }
        'dsh-agents;help;fleet;init' {
            break
        }
        'dsh-agents;help;fleet;run' {
            break
        }
        'dsh-agents;help;fleet;status' {
            break
        }
        'dsh-agents;help;cancel' {
            break
        }
        'dsh-agents;help;spawn' {
            break
        }
        'dsh-agents;help;completions' {
            break
        }
        'dsh-agents;help;man' {
            break
        }
        'dsh-agents;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
