
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
            cand --contract 'Which tool contract to speak'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds'
            cand --max-pending 'Admission bound: pending messages an inbox may hold before sends are rejected'
            cand --json 'Print the canonical JSON value instead of the rendered text'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand list-agents 'list_agents: v2 lists the caller''s whole tree; v1 lists children or descendants'
            cand send-message 'send_message: v2 any member of the caller''s tree by name or id; v1 a direct child by id'
            cand subagent-send-message 'subagent_send_message (seed 002): parent to a direct continuable child, by id'
            cand subagent-parent-message 'subagent_parent_message (seed 002): child to its direct parent'
            cand followup 'Deliver a message as the user to AGENT''s next turn'
            cand steer 'Deliver a message as the user to AGENT''s next step'
            cand interrupt-agent 'interrupt_agent: stop a descendant''s current turn (v2 by name or id; v1 by id)'
            cand interrupt 'Interrupt AGENT''s current turn as the user'
            cand wait-agent 'wait_agent (v2): wait for new next-step input in the caller''s own inbox'
            cand serve 'Hold AGENT live and run CMD once per turn with the claimed messages on stdin'
            cand inbox 'Show AGENT''s pending next-step and next-turn messages and parked state'
            cand claim 'Consume pending input as the agent loop does at a step boundary; print it as JSON'
            cand call 'Run a model tool by name with its raw JSON arguments'
            cand identity 'Print the subagent:identity runtime context for the caller (seed 001)'
            cand tree 'Table of every tree (or the one holding AGENT)'
            cand check 'Verify the whole store; report every problem with its path'
            cand spawn 'Create a session (a root, or a child with --parent) and print its id'
            cand completions 'Print shell completions'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'dsh-agents;list-agents'= {
            cand --as 'The calling agent: a Session id or a unique prefix (>= 4 characters)'
            cand --scope 'v1 only: children (default) or descendants'
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract to speak'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds'
            cand --max-pending 'Admission bound: pending messages an inbox may hold before sends are rejected'
            cand --json 'Print the canonical JSON value instead of the rendered text'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;send-message'= {
            cand --as 'The calling agent: a Session id or a unique prefix (>= 4 characters)'
            cand --id 'Message id: repeating a send with the same id writes nothing and returns the same receipt'
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract to speak'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds'
            cand --max-pending 'Admission bound: pending messages an inbox may hold before sends are rejected'
            cand --json 'Print the canonical JSON value instead of the rendered text'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;subagent-send-message'= {
            cand --as 'The calling agent: a Session id or a unique prefix (>= 4 characters)'
            cand --id 'Message id: repeating a send with the same id writes nothing and returns the same receipt'
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract to speak'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds'
            cand --max-pending 'Admission bound: pending messages an inbox may hold before sends are rejected'
            cand --json 'Print the canonical JSON value instead of the rendered text'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;subagent-parent-message'= {
            cand --as 'The calling agent: a Session id or a unique prefix (>= 4 characters)'
            cand --mode 'followup: the parent''s next turn; steer: its next step'
            cand --id 'Message id: repeating a send with the same id writes nothing and returns the same receipt'
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract to speak'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds'
            cand --max-pending 'Admission bound: pending messages an inbox may hold before sends are rejected'
            cand --json 'Print the canonical JSON value instead of the rendered text'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;followup'= {
            cand --id 'Message id: repeating a send with the same id writes nothing and returns the same receipt'
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract to speak'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds'
            cand --max-pending 'Admission bound: pending messages an inbox may hold before sends are rejected'
            cand --json 'Print the canonical JSON value instead of the rendered text'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;steer'= {
            cand --id 'Message id: repeating a send with the same id writes nothing and returns the same receipt'
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract to speak'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds'
            cand --max-pending 'Admission bound: pending messages an inbox may hold before sends are rejected'
            cand --json 'Print the canonical JSON value instead of the rendered text'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;interrupt-agent'= {
            cand --as 'The calling agent: a Session id or a unique prefix (>= 4 characters)'
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract to speak'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds'
            cand --max-pending 'Admission bound: pending messages an inbox may hold before sends are rejected'
            cand --json 'Print the canonical JSON value instead of the rendered text'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;interrupt'= {
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract to speak'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds'
            cand --max-pending 'Admission bound: pending messages an inbox may hold before sends are rejected'
            cand --json 'Print the canonical JSON value instead of the rendered text'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;wait-agent'= {
            cand --as 'The calling agent: a Session id or a unique prefix (>= 4 characters)'
            cand --timeout-ms 'Timeout in milliseconds, 10000 through 3600000'
            cand --call 'The root tool call: waits under one call report each id once'
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract to speak'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds'
            cand --max-pending 'Admission bound: pending messages an inbox may hold before sends are rejected'
            cand --poll 'Poll instead of using file notification'
            cand --json 'Print the canonical JSON value instead of the rendered text'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;serve'= {
            cand --as 'The calling agent: a Session id or a unique prefix (>= 4 characters)'
            cand --grace-ms 'Milliseconds between SIGTERM and SIGKILL when a turn is stopped'
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract to speak'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds'
            cand --max-pending 'Admission bound: pending messages an inbox may hold before sends are rejected'
            cand --once 'Exit when nothing runnable is left'
            cand --poll 'Poll instead of using file notification'
            cand --quiet 'Do not log each turn on stderr'
            cand --json 'Print the canonical JSON value instead of the rendered text'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;inbox'= {
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract to speak'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds'
            cand --max-pending 'Admission bound: pending messages an inbox may hold before sends are rejected'
            cand --json 'Print the canonical JSON value instead of the rendered text'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;claim'= {
            cand --as 'The calling agent: a Session id or a unique prefix (>= 4 characters)'
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract to speak'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds'
            cand --max-pending 'Admission bound: pending messages an inbox may hold before sends are rejected'
            cand --json 'Print the canonical JSON value instead of the rendered text'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;call'= {
            cand --as 'The calling agent: a Session id or a unique prefix (>= 4 characters)'
            cand --id 'Message id: repeating a send with the same id writes nothing and returns the same receipt'
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract to speak'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds'
            cand --max-pending 'Admission bound: pending messages an inbox may hold before sends are rejected'
            cand --json 'Print the canonical JSON value instead of the rendered text'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;identity'= {
            cand --as 'The calling agent: a Session id or a unique prefix (>= 4 characters)'
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract to speak'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds'
            cand --max-pending 'Admission bound: pending messages an inbox may hold before sends are rejected'
            cand --json 'Print the canonical JSON value instead of the rendered text'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;tree'= {
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract to speak'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds'
            cand --max-pending 'Admission bound: pending messages an inbox may hold before sends are rejected'
            cand --json 'Print the canonical JSON value instead of the rendered text'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;check'= {
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract to speak'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds'
            cand --max-pending 'Admission bound: pending messages an inbox may hold before sends are rejected'
            cand --json 'Print the canonical JSON value instead of the rendered text'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;spawn'= {
            cand --parent 'Parent Session id or unique prefix; omit to create a root'
            cand --name 'Agent name (1-64 of [A-Za-z0-9._-], not "lead", unique among siblings)'
            cand --label 'Creation label (the description list_agents shows)'
            cand --mode 'Child mode'
            cand --prompt 'The initial prompt, recorded as the first turn'
            cand --id 'Session id [default: a random UUID]'
            cand --created-at 'Creation time in epoch milliseconds [default: now]'
            cand --cwd 'Project directory (absolute); children inherit the parent''s by default'
            cand --compression 'Encoding for a new store (an existing store keeps its own)'
            cand --provider 'Subagent provider recorded in the descriptor'
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract to speak'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds'
            cand --max-pending 'Admission bound: pending messages an inbox may hold before sends are rejected'
            cand --json 'Print the canonical JSON value instead of the rendered text'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;completions'= {
            cand --store 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]'
            cand --contract 'Which tool contract to speak'
            cand --lock-timeout 'Longest wait for an inbox lock, in seconds'
            cand --max-pending 'Admission bound: pending messages an inbox may hold before sends are rejected'
            cand --json 'Print the canonical JSON value instead of the rendered text'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'dsh-agents;help'= {
            cand list-agents 'list_agents: v2 lists the caller''s whole tree; v1 lists children or descendants'
            cand send-message 'send_message: v2 any member of the caller''s tree by name or id; v1 a direct child by id'
            cand subagent-send-message 'subagent_send_message (seed 002): parent to a direct continuable child, by id'
            cand subagent-parent-message 'subagent_parent_message (seed 002): child to its direct parent'
            cand followup 'Deliver a message as the user to AGENT''s next turn'
            cand steer 'Deliver a message as the user to AGENT''s next step'
            cand interrupt-agent 'interrupt_agent: stop a descendant''s current turn (v2 by name or id; v1 by id)'
            cand interrupt 'Interrupt AGENT''s current turn as the user'
            cand wait-agent 'wait_agent (v2): wait for new next-step input in the caller''s own inbox'
            cand serve 'Hold AGENT live and run CMD once per turn with the claimed messages on stdin'
            cand inbox 'Show AGENT''s pending next-step and next-turn messages and parked state'
            cand claim 'Consume pending input as the agent loop does at a step boundary; print it as JSON'
            cand call 'Run a model tool by name with its raw JSON arguments'
            cand identity 'Print the subagent:identity runtime context for the caller (seed 001)'
            cand tree 'Table of every tree (or the one holding AGENT)'
            cand check 'Verify the whole store; report every problem with its path'
            cand spawn 'Create a session (a root, or a child with --parent) and print its id'
            cand completions 'Print shell completions'
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
        &'dsh-agents;help;followup'= {
        }
        &'dsh-agents;help;steer'= {
        }
        &'dsh-agents;help;interrupt-agent'= {
        }
        &'dsh-agents;help;interrupt'= {
        }
        &'dsh-agents;help;wait-agent'= {
        }
        &'dsh-agents;help;serve'= {
        }
        &'dsh-agents;help;inbox'= {
        }
        &'dsh-agents;help;claim'= {
        }
        &'dsh-agents;help;call'= {
        }
        &'dsh-agents;help;identity'= {
        }
        &'dsh-agents;help;tree'= {
        }
        &'dsh-agents;help;check'= {
        }
        &'dsh-agents;help;spawn'= {
        }
        &'dsh-agents;help;completions'= {
        }
        &'dsh-agents;help;help'= {
        }
    ]
    $completions[$command]
}
