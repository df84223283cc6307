# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_dsh_agents_global_optspecs
    string join \n store= contract= json lock-timeout= max-pending= no-cache h/help V/version
end

function __fish_dsh_agents_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_dsh_agents_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_dsh_agents_using_subcommand
    set -l cmd (__fish_dsh_agents_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c dsh-agents -n "__fish_dsh_agents_needs_command" -l store -d 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]' -r -f -a "(__fish_complete_directories)"
complete -c dsh-agents -n "__fish_dsh_agents_needs_command" -l contract -d 'Which tool contract model tools speak (list-agents, send-message, call, …)' -r -f -a "v1\t'The tools DSH 0.1.0-rc.8 ships, byte for byte: agents by Session id, a parent messages its direct children'
v2\t'Name-addressed tools: the caller\'s whole tree, messages to any member by name, wait_agent'"
complete -c dsh-agents -n "__fish_dsh_agents_needs_command" -l lock-timeout -d 'Longest wait for an inbox lock, in seconds (commands that write an inbox)' -r
complete -c dsh-agents -n "__fish_dsh_agents_needs_command" -l max-pending -d 'Admission bound for sends: pending messages an inbox may hold before a send is rejected' -r
complete -c dsh-agents -n "__fish_dsh_agents_needs_command" -l json -d 'Print JSON instead of text (errors too, on stderr)'
complete -c dsh-agents -n "__fish_dsh_agents_needs_command" -l no-cache -d 'Resolve v2 names by scanning the store, without the name index in the cache directory'
complete -c dsh-agents -n "__fish_dsh_agents_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-agents -n "__fish_dsh_agents_needs_command" -s V -l version -d 'Print version'
complete -c dsh-agents -n "__fish_dsh_agents_needs_command" -f -a "list-agents" -d 'list_agents: v2 lists the caller\'s whole tree; v1 lists children or descendants'
complete -c dsh-agents -n "__fish_dsh_agents_needs_command" -f -a "send-message" -d 'send_message: v2 any member of the caller\'s tree by name or id; v1 a direct child by id'
complete -c dsh-agents -n "__fish_dsh_agents_needs_command" -f -a "subagent-send-message" -d 'subagent_send_message: a parent to one of its direct continuable children, by id'
complete -c dsh-agents -n "__fish_dsh_agents_needs_command" -f -a "subagent-parent-message" -d 'subagent_parent_message: a child to its direct parent'
complete -c dsh-agents -n "__fish_dsh_agents_needs_command" -f -a "interrupt-agent" -d 'interrupt_agent: stop a descendant\'s current turn (v2 by name or id; v1 by id)'
complete -c dsh-agents -n "__fish_dsh_agents_needs_command" -f -a "wait-agent" -d 'wait_agent (v2): wait for new next-step input in the caller\'s own inbox'
complete -c dsh-agents -n "__fish_dsh_agents_needs_command" -f -a "call" -d 'Run a model tool by name with its raw JSON arguments'
complete -c dsh-agents -n "__fish_dsh_agents_needs_command" -f -a "followup" -d 'Deliver a message as the user to AGENT\'s next turn'
complete -c dsh-agents -n "__fish_dsh_agents_needs_command" -f -a "steer" -d 'Deliver a message as the user to AGENT\'s next step'
complete -c dsh-agents -n "__fish_dsh_agents_needs_command" -f -a "interrupt" -d 'Interrupt AGENT\'s current turn as the user'
complete -c dsh-agents -n "__fish_dsh_agents_needs_command" -f -a "serve" -d 'Hold AGENT live and run CMD once per turn with the claimed messages on stdin'
complete -c dsh-agents -n "__fish_dsh_agents_needs_command" -f -a "bridge" -d 'Companion of one DSH process: holds its agents live and hands it their messages (JSON lines on stdin/stdout)'
complete -c dsh-agents -n "__fish_dsh_agents_needs_command" -f -a "inbox" -d 'Show AGENT\'s pending next-step and next-turn messages and parked state'
complete -c dsh-agents -n "__fish_dsh_agents_needs_command" -f -a "claim" -d 'Consume pending input as the agent loop does at a step boundary; print it as JSON'
complete -c dsh-agents -n "__fish_dsh_agents_needs_command" -f -a "identity" -d 'Print what the caller is told of itself: its name, who delegated it, its tree\'s root'
complete -c dsh-agents -n "__fish_dsh_agents_needs_command" -f -a "tree" -d 'Every tree in the store (or the one holding AGENT): hierarchy, state, last turn, pending inbox, tokens'
complete -c dsh-agents -n "__fish_dsh_agents_needs_command" -f -a "top" -d 'The tree live in a terminal: each agent\'s log, inbox, usage and traces beside it, and followup, steer, interrupt and cancel on keys'
complete -c dsh-agents -n "__fish_dsh_agents_needs_command" -f -a "events" -d 'State transitions, one line each: turns started and finished, agents becoming running, idle or inactive, problems, stale messages'
complete -c dsh-agents -n "__fish_dsh_agents_needs_command" -f -a "watch" -d 'Budgets on subtrees in tokens or money: an event at 80%, and at 100% an event or an interrupt of every running agent in the subtree'
complete -c dsh-agents -n "__fish_dsh_agents_needs_command" -f -a "check" -d 'Verify the whole store; report every problem with its path'
complete -c dsh-agents -n "__fish_dsh_agents_needs_command" -f -a "log" -d 'Show AGENT\'s transcript: each turn, what the model saw and did, and how the turn ended'
complete -c dsh-agents -n "__fish_dsh_agents_needs_command" -f -a "trace" -d 'Show where a message went: sent, claimed, in the transcript, or why not'
complete -c dsh-agents -n "__fish_dsh_agents_needs_command" -f -a "export" -d 'The tree as OpenTelemetry traces (OTLP/JSON to a file or stdout, OTLP/HTTP to a collector)'
complete -c dsh-agents -n "__fish_dsh_agents_needs_command" -f -a "usage" -d 'Tokens each agent\'s model calls used (and their cost, given prices)'
complete -c dsh-agents -n "__fish_dsh_agents_needs_command" -f -a "fleet" -d 'Agents on many hosts, over NATS JetStream: the hub, a host\'s daemon, its status'
complete -c dsh-agents -n "__fish_dsh_agents_needs_command" -f -a "cancel" -d 'Withdraw a pending message before it is delivered'
complete -c dsh-agents -n "__fish_dsh_agents_needs_command" -f -a "spawn" -d 'Create a session (a root, or a child with --parent) and print its id'
complete -c dsh-agents -n "__fish_dsh_agents_needs_command" -f -a "completions" -d 'Print shell completions'
complete -c dsh-agents -n "__fish_dsh_agents_needs_command" -f -a "man" -d 'Print the man page (roff), of the tool or of one command'
complete -c dsh-agents -n "__fish_dsh_agents_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand list-agents" -l as -d 'The calling agent: a Session id, a unique prefix (>= 4 characters), or a name path (reviewer/checker; v2 only: rc.8 takes a caller id as it is)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand list-agents" -l scope -d 'v1 only: children (default) or descendants' -r -f -a "children\t''
descendants\t''"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand list-agents" -l store -d 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]' -r -f -a "(__fish_complete_directories)"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand list-agents" -l contract -d 'Which tool contract model tools speak (list-agents, send-message, call, …)' -r -f -a "v1\t'The tools DSH 0.1.0-rc.8 ships, byte for byte: agents by Session id, a parent messages its direct children'
v2\t'Name-addressed tools: the caller\'s whole tree, messages to any member by name, wait_agent'"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand list-agents" -l lock-timeout -d 'Longest wait for an inbox lock, in seconds (commands that write an inbox)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand list-agents" -l max-pending -d 'Admission bound for sends: pending messages an inbox may hold before a send is rejected' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand list-agents" -l json -d 'Print JSON instead of text (errors too, on stderr)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand list-agents" -l no-cache -d 'Resolve v2 names by scanning the store, without the name index in the cache directory'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand list-agents" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand send-message" -l as -d 'The calling agent: a Session id, a unique prefix (>= 4 characters), or a name path (reviewer/checker; v2 only: rc.8 takes a caller id as it is)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand send-message" -l id -d 'Message id: repeating a send with the same id writes nothing and returns the same receipt' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand send-message" -l store -d 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]' -r -f -a "(__fish_complete_directories)"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand send-message" -l contract -d 'Which tool contract model tools speak (list-agents, send-message, call, …)' -r -f -a "v1\t'The tools DSH 0.1.0-rc.8 ships, byte for byte: agents by Session id, a parent messages its direct children'
v2\t'Name-addressed tools: the caller\'s whole tree, messages to any member by name, wait_agent'"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand send-message" -l lock-timeout -d 'Longest wait for an inbox lock, in seconds (commands that write an inbox)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand send-message" -l max-pending -d 'Admission bound for sends: pending messages an inbox may hold before a send is rejected' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand send-message" -l json -d 'Print JSON instead of text (errors too, on stderr)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand send-message" -l no-cache -d 'Resolve v2 names by scanning the store, without the name index in the cache directory'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand send-message" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand subagent-send-message" -l as -d 'The calling agent: a Session id, a unique prefix (>= 4 characters), or a name path (reviewer/checker; v2 only: rc.8 takes a caller id as it is)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand subagent-send-message" -l id -d 'Message id: repeating a send with the same id writes nothing and returns the same receipt' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand subagent-send-message" -l store -d 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]' -r -f -a "(__fish_complete_directories)"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand subagent-send-message" -l contract -d 'Which tool contract model tools speak (list-agents, send-message, call, …)' -r -f -a "v1\t'The tools DSH 0.1.0-rc.8 ships, byte for byte: agents by Session id, a parent messages its direct children'
v2\t'Name-addressed tools: the caller\'s whole tree, messages to any member by name, wait_agent'"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand subagent-send-message" -l lock-timeout -d 'Longest wait for an inbox lock, in seconds (commands that write an inbox)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand subagent-send-message" -l max-pending -d 'Admission bound for sends: pending messages an inbox may hold before a send is rejected' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand subagent-send-message" -l json -d 'Print JSON instead of text (errors too, on stderr)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand subagent-send-message" -l no-cache -d 'Resolve v2 names by scanning the store, without the name index in the cache directory'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand subagent-send-message" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand subagent-parent-message" -l as -d 'The calling agent: a Session id, a unique prefix (>= 4 characters), or a name path (reviewer/checker; v2 only: rc.8 takes a caller id as it is)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand subagent-parent-message" -l mode -d 'followup: the parent\'s next turn; steer: its next step' -r -f -a "followup\t'Queue as the next turn'
steer\t'Inject at the next step'"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand subagent-parent-message" -l id -d 'Message id: repeating a send with the same id writes nothing and returns the same receipt' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand subagent-parent-message" -l store -d 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]' -r -f -a "(__fish_complete_directories)"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand subagent-parent-message" -l contract -d 'Which tool contract model tools speak (list-agents, send-message, call, …)' -r -f -a "v1\t'The tools DSH 0.1.0-rc.8 ships, byte for byte: agents by Session id, a parent messages its direct children'
v2\t'Name-addressed tools: the caller\'s whole tree, messages to any member by name, wait_agent'"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand subagent-parent-message" -l lock-timeout -d 'Longest wait for an inbox lock, in seconds (commands that write an inbox)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand subagent-parent-message" -l max-pending -d 'Admission bound for sends: pending messages an inbox may hold before a send is rejected' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand subagent-parent-message" -l json -d 'Print JSON instead of text (errors too, on stderr)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand subagent-parent-message" -l no-cache -d 'Resolve v2 names by scanning the store, without the name index in the cache directory'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand subagent-parent-message" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand interrupt-agent" -l as -d 'The calling agent: a Session id, a unique prefix (>= 4 characters), or a name path (reviewer/checker; v2 only: rc.8 takes a caller id as it is)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand interrupt-agent" -l store -d 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]' -r -f -a "(__fish_complete_directories)"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand interrupt-agent" -l contract -d 'Which tool contract model tools speak (list-agents, send-message, call, …)' -r -f -a "v1\t'The tools DSH 0.1.0-rc.8 ships, byte for byte: agents by Session id, a parent messages its direct children'
v2\t'Name-addressed tools: the caller\'s whole tree, messages to any member by name, wait_agent'"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand interrupt-agent" -l lock-timeout -d 'Longest wait for an inbox lock, in seconds (commands that write an inbox)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand interrupt-agent" -l max-pending -d 'Admission bound for sends: pending messages an inbox may hold before a send is rejected' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand interrupt-agent" -l json -d 'Print JSON instead of text (errors too, on stderr)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand interrupt-agent" -l no-cache -d 'Resolve v2 names by scanning the store, without the name index in the cache directory'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand interrupt-agent" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand wait-agent" -l as -d 'The calling agent: a Session id, a unique prefix (>= 4 characters), or a name path (reviewer/checker; v2 only: rc.8 takes a caller id as it is)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand wait-agent" -l timeout-ms -d 'Timeout in milliseconds, 10000 through 3600000' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand wait-agent" -l call -d 'The root tool call: waits under one call report each id once' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand wait-agent" -l store -d 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]' -r -f -a "(__fish_complete_directories)"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand wait-agent" -l contract -d 'Which tool contract model tools speak (list-agents, send-message, call, …)' -r -f -a "v1\t'The tools DSH 0.1.0-rc.8 ships, byte for byte: agents by Session id, a parent messages its direct children'
v2\t'Name-addressed tools: the caller\'s whole tree, messages to any member by name, wait_agent'"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand wait-agent" -l lock-timeout -d 'Longest wait for an inbox lock, in seconds (commands that write an inbox)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand wait-agent" -l max-pending -d 'Admission bound for sends: pending messages an inbox may hold before a send is rejected' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand wait-agent" -l poll -d 'Poll instead of using file notification'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand wait-agent" -l json -d 'Print JSON instead of text (errors too, on stderr)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand wait-agent" -l no-cache -d 'Resolve v2 names by scanning the store, without the name index in the cache directory'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand wait-agent" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand call" -l as -d 'The calling agent: a Session id, a unique prefix (>= 4 characters), or a name path (reviewer/checker; v2 only: rc.8 takes a caller id as it is)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand call" -l id -d 'Message id: repeating a send with the same id writes nothing and returns the same receipt' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand call" -l store -d 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]' -r -f -a "(__fish_complete_directories)"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand call" -l contract -d 'Which tool contract model tools speak (list-agents, send-message, call, …)' -r -f -a "v1\t'The tools DSH 0.1.0-rc.8 ships, byte for byte: agents by Session id, a parent messages its direct children'
v2\t'Name-addressed tools: the caller\'s whole tree, messages to any member by name, wait_agent'"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand call" -l lock-timeout -d 'Longest wait for an inbox lock, in seconds (commands that write an inbox)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand call" -l max-pending -d 'Admission bound for sends: pending messages an inbox may hold before a send is rejected' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand call" -l json -d 'Print JSON instead of text (errors too, on stderr)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand call" -l no-cache -d 'Resolve v2 names by scanning the store, without the name index in the cache directory'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand call" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand followup" -l id -d 'Message id: repeating a send with the same id writes nothing and returns the same receipt' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand followup" -l wait -d 'Wait until the message is in the target\'s inbox (accepted) or in its transcript (delivered): for HOST:AGENT on another host; a local send is accepted when it returns' -r -f -a "accepted\t'In the target agent\'s inbox'
delivered\t'In the target agent\'s transcript: the model saw it'"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand followup" -l timeout -d 'With --wait: the most seconds to wait (the message stays queued after it)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand followup" -l store -d 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]' -r -f -a "(__fish_complete_directories)"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand followup" -l contract -d 'Which tool contract model tools speak (list-agents, send-message, call, …)' -r -f -a "v1\t'The tools DSH 0.1.0-rc.8 ships, byte for byte: agents by Session id, a parent messages its direct children'
v2\t'Name-addressed tools: the caller\'s whole tree, messages to any member by name, wait_agent'"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand followup" -l lock-timeout -d 'Longest wait for an inbox lock, in seconds (commands that write an inbox)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand followup" -l max-pending -d 'Admission bound for sends: pending messages an inbox may hold before a send is rejected' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand followup" -l json -d 'Print JSON instead of text (errors too, on stderr)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand followup" -l no-cache -d 'Resolve v2 names by scanning the store, without the name index in the cache directory'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand followup" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand steer" -l id -d 'Message id: repeating a send with the same id writes nothing and returns the same receipt' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand steer" -l wait -d 'Wait until the message is in the target\'s inbox (accepted) or in its transcript (delivered): for HOST:AGENT on another host; a local send is accepted when it returns' -r -f -a "accepted\t'In the target agent\'s inbox'
delivered\t'In the target agent\'s transcript: the model saw it'"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand steer" -l timeout -d 'With --wait: the most seconds to wait (the message stays queued after it)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand steer" -l store -d 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]' -r -f -a "(__fish_complete_directories)"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand steer" -l contract -d 'Which tool contract model tools speak (list-agents, send-message, call, …)' -r -f -a "v1\t'The tools DSH 0.1.0-rc.8 ships, byte for byte: agents by Session id, a parent messages its direct children'
v2\t'Name-addressed tools: the caller\'s whole tree, messages to any member by name, wait_agent'"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand steer" -l lock-timeout -d 'Longest wait for an inbox lock, in seconds (commands that write an inbox)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand steer" -l max-pending -d 'Admission bound for sends: pending messages an inbox may hold before a send is rejected' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand steer" -l json -d 'Print JSON instead of text (errors too, on stderr)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand steer" -l no-cache -d 'Resolve v2 names by scanning the store, without the name index in the cache directory'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand steer" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand interrupt" -l expires -d 'For HOST:AGENT on another host: apply the interrupt only if it reaches that host within this many seconds (later, its receipt says expired)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand interrupt" -l store -d 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]' -r -f -a "(__fish_complete_directories)"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand interrupt" -l contract -d 'Which tool contract model tools speak (list-agents, send-message, call, …)' -r -f -a "v1\t'The tools DSH 0.1.0-rc.8 ships, byte for byte: agents by Session id, a parent messages its direct children'
v2\t'Name-addressed tools: the caller\'s whole tree, messages to any member by name, wait_agent'"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand interrupt" -l lock-timeout -d 'Longest wait for an inbox lock, in seconds (commands that write an inbox)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand interrupt" -l max-pending -d 'Admission bound for sends: pending messages an inbox may hold before a send is rejected' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand interrupt" -l json -d 'Print JSON instead of text (errors too, on stderr)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand interrupt" -l no-cache -d 'Resolve v2 names by scanning the store, without the name index in the cache directory'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand interrupt" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand serve" -l as -d 'The calling agent: a Session id, a unique prefix (>= 4 characters), or a name path (reviewer/checker; v2 only: rc.8 takes a caller id as it is)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand serve" -l grace-ms -d 'Milliseconds between SIGTERM and SIGKILL when a turn is stopped' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand serve" -l store -d 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]' -r -f -a "(__fish_complete_directories)"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand serve" -l contract -d 'Which tool contract model tools speak (list-agents, send-message, call, …)' -r -f -a "v1\t'The tools DSH 0.1.0-rc.8 ships, byte for byte: agents by Session id, a parent messages its direct children'
v2\t'Name-addressed tools: the caller\'s whole tree, messages to any member by name, wait_agent'"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand serve" -l lock-timeout -d 'Longest wait for an inbox lock, in seconds (commands that write an inbox)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand serve" -l max-pending -d 'Admission bound for sends: pending messages an inbox may hold before a send is rejected' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand serve" -l once -d 'Exit when nothing runnable is left'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand serve" -l poll -d 'Poll instead of using file notification'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand serve" -l quiet -d 'Do not log each turn on stderr'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand serve" -l json -d 'Print JSON instead of text (errors too, on stderr)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand serve" -l no-cache -d 'Resolve v2 names by scanning the store, without the name index in the cache directory'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand serve" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand bridge" -l store -d 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]' -r -f -a "(__fish_complete_directories)"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand bridge" -l contract -d 'Which tool contract model tools speak (list-agents, send-message, call, …)' -r -f -a "v1\t'The tools DSH 0.1.0-rc.8 ships, byte for byte: agents by Session id, a parent messages its direct children'
v2\t'Name-addressed tools: the caller\'s whole tree, messages to any member by name, wait_agent'"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand bridge" -l lock-timeout -d 'Longest wait for an inbox lock, in seconds (commands that write an inbox)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand bridge" -l max-pending -d 'Admission bound for sends: pending messages an inbox may hold before a send is rejected' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand bridge" -l check -d 'Only check that the store can be the bridge\'s (a readable directory, or not created yet), print the version, and exit'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand bridge" -l json -d 'Print JSON instead of text (errors too, on stderr)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand bridge" -l no-cache -d 'Resolve v2 names by scanning the store, without the name index in the cache directory'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand bridge" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand inbox" -l store -d 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]' -r -f -a "(__fish_complete_directories)"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand inbox" -l contract -d 'Which tool contract model tools speak (list-agents, send-message, call, …)' -r -f -a "v1\t'The tools DSH 0.1.0-rc.8 ships, byte for byte: agents by Session id, a parent messages its direct children'
v2\t'Name-addressed tools: the caller\'s whole tree, messages to any member by name, wait_agent'"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand inbox" -l lock-timeout -d 'Longest wait for an inbox lock, in seconds (commands that write an inbox)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand inbox" -l max-pending -d 'Admission bound for sends: pending messages an inbox may hold before a send is rejected' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand inbox" -l json -d 'Print JSON instead of text (errors too, on stderr)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand inbox" -l no-cache -d 'Resolve v2 names by scanning the store, without the name index in the cache directory'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand inbox" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand claim" -l as -d 'The calling agent: a Session id, a unique prefix (>= 4 characters), or a name path (reviewer/checker; v2 only: rc.8 takes a caller id as it is)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand claim" -l store -d 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]' -r -f -a "(__fish_complete_directories)"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand claim" -l contract -d 'Which tool contract model tools speak (list-agents, send-message, call, …)' -r -f -a "v1\t'The tools DSH 0.1.0-rc.8 ships, byte for byte: agents by Session id, a parent messages its direct children'
v2\t'Name-addressed tools: the caller\'s whole tree, messages to any member by name, wait_agent'"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand claim" -l lock-timeout -d 'Longest wait for an inbox lock, in seconds (commands that write an inbox)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand claim" -l max-pending -d 'Admission bound for sends: pending messages an inbox may hold before a send is rejected' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand claim" -l json -d 'Print JSON instead of text (errors too, on stderr)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand claim" -l no-cache -d 'Resolve v2 names by scanning the store, without the name index in the cache directory'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand claim" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand identity" -l as -d 'The calling agent: a Session id, a unique prefix (>= 4 characters), or a name path (reviewer/checker; v2 only: rc.8 takes a caller id as it is)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand identity" -l store -d 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]' -r -f -a "(__fish_complete_directories)"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand identity" -l contract -d 'Which tool contract model tools speak (list-agents, send-message, call, …)' -r -f -a "v1\t'The tools DSH 0.1.0-rc.8 ships, byte for byte: agents by Session id, a parent messages its direct children'
v2\t'Name-addressed tools: the caller\'s whole tree, messages to any member by name, wait_agent'"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand identity" -l lock-timeout -d 'Longest wait for an inbox lock, in seconds (commands that write an inbox)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand identity" -l max-pending -d 'Admission bound for sends: pending messages an inbox may hold before a send is rejected' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand identity" -l json -d 'Print JSON instead of text (errors too, on stderr)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand identity" -l no-cache -d 'Resolve v2 names by scanning the store, without the name index in the cache directory'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand identity" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand tree" -l width -d 'Fit rows to N columns [default: the terminal\'s width, else 100]' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand tree" -l store -d 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]' -r -f -a "(__fish_complete_directories)"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand tree" -l contract -d 'Which tool contract model tools speak (list-agents, send-message, call, …)' -r -f -a "v1\t'The tools DSH 0.1.0-rc.8 ships, byte for byte: agents by Session id, a parent messages its direct children'
v2\t'Name-addressed tools: the caller\'s whole tree, messages to any member by name, wait_agent'"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand tree" -l lock-timeout -d 'Longest wait for an inbox lock, in seconds (commands that write an inbox)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand tree" -l max-pending -d 'Admission bound for sends: pending messages an inbox may hold before a send is rejected' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand tree" -l all -d 'Also list root sessions that have no subagents, each as its own tree'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand tree" -l no-usage -d 'Leave out the TOKENS column (the tokens of each agent and those below it)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand tree" -l live -d 'Only agents a resident process holds (and the agents above them)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand tree" -l problems -d 'Only agents with a diagnostic or an unreadable inbox (and the agents above them)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand tree" -l watch -d 'Redraw whenever the store changes, until Ctrl-C'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand tree" -l fleet -d 'Also every other host\'s trees, as this host\'s fleet daemon last heard them'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand tree" -l json -d 'Print JSON instead of text (errors too, on stderr)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand tree" -l no-cache -d 'Resolve v2 names by scanning the store, without the name index in the cache directory'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand tree" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand top" -l budget -d 'Budgets to show: an agent\'s tokens turn yellow at 80% of its subtree\'s budget, red at 100% (the SPEC of `watch --budget`)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand top" -l prices -d 'A price table (JSON, as `usage --prices` reads) for money budgets' -r -F
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand top" -l store -d 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]' -r -f -a "(__fish_complete_directories)"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand top" -l contract -d 'Which tool contract model tools speak (list-agents, send-message, call, …)' -r -f -a "v1\t'The tools DSH 0.1.0-rc.8 ships, byte for byte: agents by Session id, a parent messages its direct children'
v2\t'Name-addressed tools: the caller\'s whole tree, messages to any member by name, wait_agent'"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand top" -l lock-timeout -d 'Longest wait for an inbox lock, in seconds (commands that write an inbox)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand top" -l max-pending -d 'Admission bound for sends: pending messages an inbox may hold before a send is rejected' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand top" -l json -d 'Print JSON instead of text (errors too, on stderr)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand top" -l no-cache -d 'Resolve v2 names by scanning the store, without the name index in the cache directory'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand top" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand events" -l since -d 'First the turns the logs record since this time: epoch ms, a UTC date (2026-12-01[T08:30]) or an age (30m, 2h, 7d)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand events" -l stale-after -d 'With --follow: report each message pending longer than this (90s, 10m, 2h), once' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand events" -l exec -d 'Run CMD (with sh -c) for each event, the event as JSON on its standard input; a failing CMD is reported, the stream goes on' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand events" -l store -d 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]' -r -f -a "(__fish_complete_directories)"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand events" -l contract -d 'Which tool contract model tools speak (list-agents, send-message, call, …)' -r -f -a "v1\t'The tools DSH 0.1.0-rc.8 ships, byte for byte: agents by Session id, a parent messages its direct children'
v2\t'Name-addressed tools: the caller\'s whole tree, messages to any member by name, wait_agent'"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand events" -l lock-timeout -d 'Longest wait for an inbox lock, in seconds (commands that write an inbox)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand events" -l max-pending -d 'Admission bound for sends: pending messages an inbox may hold before a send is rejected' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand events" -s f -l follow -d 'Keep printing transitions as they happen, until Ctrl-C'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand events" -l json -d 'Print JSON instead of text (errors too, on stderr)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand events" -l no-cache -d 'Resolve v2 names by scanning the store, without the name index in the cache directory'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand events" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand watch" -l budget -d 'AGENT=LIMIT[,AGENT=LIMIT...]: LIMIT in tokens (200000, 200k, 1.5m) or money ($5, $0.50, with --prices)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand watch" -l prices -d 'A price table (JSON, as `usage --prices` reads) for money budgets' -r -F
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand watch" -l on-exceed -d 'At 100%: report it, or also interrupt every running agent in the subtree' -r -f -a "warn\t'Report it (an event)'
interrupt\t'Report it and interrupt every running agent in the subtree'"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand watch" -l exec -d 'Run CMD (with sh -c) for each event, the event as JSON on its standard input; a failing CMD is reported, the watch goes on' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand watch" -l store -d 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]' -r -f -a "(__fish_complete_directories)"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand watch" -l contract -d 'Which tool contract model tools speak (list-agents, send-message, call, …)' -r -f -a "v1\t'The tools DSH 0.1.0-rc.8 ships, byte for byte: agents by Session id, a parent messages its direct children'
v2\t'Name-addressed tools: the caller\'s whole tree, messages to any member by name, wait_agent'"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand watch" -l lock-timeout -d 'Longest wait for an inbox lock, in seconds (commands that write an inbox)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand watch" -l max-pending -d 'Admission bound for sends: pending messages an inbox may hold before a send is rejected' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand watch" -l once -d 'Check once and exit, instead of following the store until Ctrl-C'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand watch" -l json -d 'Print JSON instead of text (errors too, on stderr)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand watch" -l no-cache -d 'Resolve v2 names by scanning the store, without the name index in the cache directory'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand watch" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand check" -l store -d 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]' -r -f -a "(__fish_complete_directories)"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand check" -l contract -d 'Which tool contract model tools speak (list-agents, send-message, call, …)' -r -f -a "v1\t'The tools DSH 0.1.0-rc.8 ships, byte for byte: agents by Session id, a parent messages its direct children'
v2\t'Name-addressed tools: the caller\'s whole tree, messages to any member by name, wait_agent'"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand check" -l lock-timeout -d 'Longest wait for an inbox lock, in seconds (commands that write an inbox)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand check" -l max-pending -d 'Admission bound for sends: pending messages an inbox may hold before a send is rejected' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand check" -l fleet -d 'Also the problems the other hosts of the fleet report in their session rows'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand check" -l json -d 'Print JSON instead of text (errors too, on stderr)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand check" -l no-cache -d 'Resolve v2 names by scanning the store, without the name index in the cache directory'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand log" -s n -l last -d 'Only the last N turns (N at least 1)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand log" -l store -d 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]' -r -f -a "(__fish_complete_directories)"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand log" -l contract -d 'Which tool contract model tools speak (list-agents, send-message, call, …)' -r -f -a "v1\t'The tools DSH 0.1.0-rc.8 ships, byte for byte: agents by Session id, a parent messages its direct children'
v2\t'Name-addressed tools: the caller\'s whole tree, messages to any member by name, wait_agent'"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand log" -l lock-timeout -d 'Longest wait for an inbox lock, in seconds (commands that write an inbox)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand log" -l max-pending -d 'Admission bound for sends: pending messages an inbox may hold before a send is rejected' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand log" -l reasoning -d 'Show reasoning text instead of folding it'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand log" -l full -d 'Show long messages, tool results and runtime context in full'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand log" -s f -l follow -d 'Keep printing new events until the session settles (or Ctrl-C)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand log" -l poll -d 'With --follow: poll instead of using file notification'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand log" -l json -d 'Print JSON instead of text (errors too, on stderr)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand log" -l no-cache -d 'Resolve v2 names by scanning the store, without the name index in the cache directory'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand log" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand trace" -l to -d 'The target agent, HOST:AGENT on another host of the fleet [default: search every inbox for the id]' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand trace" -l store -d 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]' -r -f -a "(__fish_complete_directories)"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand trace" -l contract -d 'Which tool contract model tools speak (list-agents, send-message, call, …)' -r -f -a "v1\t'The tools DSH 0.1.0-rc.8 ships, byte for byte: agents by Session id, a parent messages its direct children'
v2\t'Name-addressed tools: the caller\'s whole tree, messages to any member by name, wait_agent'"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand trace" -l lock-timeout -d 'Longest wait for an inbox lock, in seconds (commands that write an inbox)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand trace" -l max-pending -d 'Admission bound for sends: pending messages an inbox may hold before a send is rejected' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand trace" -l json -d 'Print JSON instead of text (errors too, on stderr)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand trace" -l no-cache -d 'Resolve v2 names by scanning the store, without the name index in the cache directory'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand trace" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand export" -s o -l output -d 'Write OTLP/JSON to FILE (- is standard output) [default: standard output]' -r -F
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand export" -l endpoint -d 'Send OTLP/HTTP (protobuf) to a collector: http://HOST:PORT (the path /v1/traces is added when the URL has none)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand export" -l timeout -d 'With --endpoint: the most seconds the whole send may take (connect, request, answer)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand export" -l store -d 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]' -r -f -a "(__fish_complete_directories)"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand export" -l contract -d 'Which tool contract model tools speak (list-agents, send-message, call, …)' -r -f -a "v1\t'The tools DSH 0.1.0-rc.8 ships, byte for byte: agents by Session id, a parent messages its direct children'
v2\t'Name-addressed tools: the caller\'s whole tree, messages to any member by name, wait_agent'"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand export" -l lock-timeout -d 'Longest wait for an inbox lock, in seconds (commands that write an inbox)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand export" -l max-pending -d 'Admission bound for sends: pending messages an inbox may hold before a send is rejected' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand export" -l all -d 'Every tree in the store'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand export" -l otlp -d 'The format: OpenTelemetry\'s OTLP (the only one)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand export" -l content -d 'Include message text and tool arguments and results'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand export" -l json -d 'Print JSON instead of text (errors too, on stderr)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand export" -l no-cache -d 'Resolve v2 names by scanning the store, without the name index in the cache directory'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand export" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand usage" -l since -d 'Only calls since this time: epoch ms, a UTC date (2026-12-01[T08:30]) or an age (30m, 2h, 7d)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand usage" -l by -d 'Group the rows' -r -f -a "agent\t''
model\t''
turn\t''"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand usage" -l prices -d 'A JSON price table (per million tokens) to add a COST column' -r -F
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand usage" -l store -d 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]' -r -f -a "(__fish_complete_directories)"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand usage" -l contract -d 'Which tool contract model tools speak (list-agents, send-message, call, …)' -r -f -a "v1\t'The tools DSH 0.1.0-rc.8 ships, byte for byte: agents by Session id, a parent messages its direct children'
v2\t'Name-addressed tools: the caller\'s whole tree, messages to any member by name, wait_agent'"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand usage" -l lock-timeout -d 'Longest wait for an inbox lock, in seconds (commands that write an inbox)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand usage" -l max-pending -d 'Admission bound for sends: pending messages an inbox may hold before a send is rejected' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand usage" -l tree -d 'With AGENT: its whole subtree, each row with its subtree\'s total'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand usage" -l fleet -d 'Each host of the fleet\'s totals, from the session rows the hosts\' daemons wrote'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand usage" -l json -d 'Print JSON instead of text (errors too, on stderr)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand usage" -l no-cache -d 'Resolve v2 names by scanning the store, without the name index in the cache directory'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand usage" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and not __fish_seen_subcommand_from config init run status help" -l store -d 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]' -r -f -a "(__fish_complete_directories)"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and not __fish_seen_subcommand_from config init run status help" -l contract -d 'Which tool contract model tools speak (list-agents, send-message, call, …)' -r -f -a "v1\t'The tools DSH 0.1.0-rc.8 ships, byte for byte: agents by Session id, a parent messages its direct children'
v2\t'Name-addressed tools: the caller\'s whole tree, messages to any member by name, wait_agent'"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and not __fish_seen_subcommand_from config init run status help" -l lock-timeout -d 'Longest wait for an inbox lock, in seconds (commands that write an inbox)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and not __fish_seen_subcommand_from config init run status help" -l max-pending -d 'Admission bound for sends: pending messages an inbox may hold before a send is rejected' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and not __fish_seen_subcommand_from config init run status help" -l json -d 'Print JSON instead of text (errors too, on stderr)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and not __fish_seen_subcommand_from config init run status help" -l no-cache -d 'Resolve v2 names by scanning the store, without the name index in the cache directory'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and not __fish_seen_subcommand_from config init run status help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and not __fish_seen_subcommand_from config init run status help" -f -a "config" -d 'Write the hub\'s nats-server configurations, one NKey per host (and admin.nk) and fleet.json'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and not __fish_seen_subcommand_from config init run status help" -f -a "init" -d 'Create the hub\'s streams, buckets and per-host consumers (idempotent)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and not __fish_seen_subcommand_from config init run status help" -f -a "run" -d 'Serve this store as a host of the fleet: forward its outbox, take its mail into inboxes, keep receipts'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and not __fish_seen_subcommand_from config init run status help" -f -a "status" -d 'The fleet as this host last saw it: hosts and when each was last seen, the outbox, every cross-host send and how far it got'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and not __fish_seen_subcommand_from config init run status help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from config" -l hosts -d 'The fleet\'s host names (ASCII letters, digits, - and _)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from config" -l out -d 'Where the files go' -r -F
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from config" -l nodes -d 'Hub nodes: 3 for a fleet that survives a node, 1 to try it' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from config" -l port -d 'The first node\'s client port (the next nodes take the next ones; cluster ports are 100 above)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from config" -l addresses -d 'Where the nodes listen and hosts dial them: one address for all (consecutive ports), or one a node (each on --port)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from config" -l tls-cert -d 'TLS on the client and route ports: the nodes\' certificate (PEM; valid for 127.0.0.1 or the names hosts use)' -r -F
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from config" -l tls-key -d 'With --tls-cert: its private key (PEM)' -r -F
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from config" -l tls-ca -d 'With --tls-cert: the CA certificate that signed it (hosts pass it to --tls-ca)' -r -F
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from config" -l store -d 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]' -r -f -a "(__fish_complete_directories)"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from config" -l contract -d 'Which tool contract model tools speak (list-agents, send-message, call, …)' -r -f -a "v1\t'The tools DSH 0.1.0-rc.8 ships, byte for byte: agents by Session id, a parent messages its direct children'
v2\t'Name-addressed tools: the caller\'s whole tree, messages to any member by name, wait_agent'"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from config" -l lock-timeout -d 'Longest wait for an inbox lock, in seconds (commands that write an inbox)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from config" -l max-pending -d 'Admission bound for sends: pending messages an inbox may hold before a send is rejected' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from config" -l json -d 'Print JSON instead of text (errors too, on stderr)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from config" -l no-cache -d 'Resolve v2 names by scanning the store, without the name index in the cache directory'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from config" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from init" -l nats -d 'The hub\'s URLs, comma-separated' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from init" -l creds -d 'The admin NKey seed file (`fleet config` writes admin.nk)' -r -F
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from init" -l hosts -d 'The fleet\'s hosts [default: those `fleet config` wrote into fleet.json beside --creds]' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from init" -l replicas -d 'Copies of every stream and bucket (the hub\'s node count, at most 5)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from init" -l ack-wait -d 'Seconds a mail taken by a host waits for its ack before the hub hands it out again' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from init" -l dedup-window -d 'Seconds the hub drops a republished mail by its id (past it the target\'s inbox still does)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from init" -l tls-ca -d 'A CA certificate: speak TLS to the hub and trust only it' -r -F
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from init" -l store -d 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]' -r -f -a "(__fish_complete_directories)"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from init" -l contract -d 'Which tool contract model tools speak (list-agents, send-message, call, …)' -r -f -a "v1\t'The tools DSH 0.1.0-rc.8 ships, byte for byte: agents by Session id, a parent messages its direct children'
v2\t'Name-addressed tools: the caller\'s whole tree, messages to any member by name, wait_agent'"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from init" -l lock-timeout -d 'Longest wait for an inbox lock, in seconds (commands that write an inbox)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from init" -l max-pending -d 'Admission bound for sends: pending messages an inbox may hold before a send is rejected' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from init" -l json -d 'Print JSON instead of text (errors too, on stderr)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from init" -l no-cache -d 'Resolve v2 names by scanning the store, without the name index in the cache directory'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from init" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from run" -l host -d 'This host\'s name in the fleet (ASCII letters, digits, - and _)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from run" -l nats -d 'The hub\'s URLs, comma-separated' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from run" -l creds -d 'This host\'s NKey seed file (`fleet config` writes HOST.nk)' -r -F
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from run" -l tls-ca -d 'A CA certificate: speak TLS to the hub and trust only it' -r -F
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from run" -l store -d 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]' -r -f -a "(__fish_complete_directories)"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from run" -l contract -d 'Which tool contract model tools speak (list-agents, send-message, call, …)' -r -f -a "v1\t'The tools DSH 0.1.0-rc.8 ships, byte for byte: agents by Session id, a parent messages its direct children'
v2\t'Name-addressed tools: the caller\'s whole tree, messages to any member by name, wait_agent'"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from run" -l lock-timeout -d 'Longest wait for an inbox lock, in seconds (commands that write an inbox)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from run" -l max-pending -d 'Admission bound for sends: pending messages an inbox may hold before a send is rejected' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from run" -l json -d 'Print JSON instead of text (errors too, on stderr)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from run" -l no-cache -d 'Resolve v2 names by scanning the store, without the name index in the cache directory'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from run" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from status" -l store -d 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]' -r -f -a "(__fish_complete_directories)"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from status" -l contract -d 'Which tool contract model tools speak (list-agents, send-message, call, …)' -r -f -a "v1\t'The tools DSH 0.1.0-rc.8 ships, byte for byte: agents by Session id, a parent messages its direct children'
v2\t'Name-addressed tools: the caller\'s whole tree, messages to any member by name, wait_agent'"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from status" -l lock-timeout -d 'Longest wait for an inbox lock, in seconds (commands that write an inbox)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from status" -l max-pending -d 'Admission bound for sends: pending messages an inbox may hold before a send is rejected' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from status" -l json -d 'Print JSON instead of text (errors too, on stderr)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from status" -l no-cache -d 'Resolve v2 names by scanning the store, without the name index in the cache directory'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from help" -f -a "config" -d 'Write the hub\'s nats-server configurations, one NKey per host (and admin.nk) and fleet.json'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from help" -f -a "init" -d 'Create the hub\'s streams, buckets and per-host consumers (idempotent)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from help" -f -a "run" -d 'Serve this store as a host of the fleet: forward its outbox, take its mail into inboxes, keep receipts'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from help" -f -a "status" -d 'The fleet as this host last saw it: hosts and when each was last seen, the outbox, every cross-host send and how far it got'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand fleet; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand cancel" -l to -d 'The target agent, HOST:AGENT for one on another host of the fleet [default: search every inbox for the id]' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand cancel" -l wait -d 'Wait until the message is in the target\'s inbox (accepted) or in its transcript (delivered): for HOST:AGENT on another host; a local send is accepted when it returns' -r -f -a "accepted\t'In the target agent\'s inbox'
delivered\t'In the target agent\'s transcript: the model saw it'"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand cancel" -l timeout -d 'With --wait: the most seconds to wait (the message stays queued after it)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand cancel" -l store -d 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]' -r -f -a "(__fish_complete_directories)"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand cancel" -l contract -d 'Which tool contract model tools speak (list-agents, send-message, call, …)' -r -f -a "v1\t'The tools DSH 0.1.0-rc.8 ships, byte for byte: agents by Session id, a parent messages its direct children'
v2\t'Name-addressed tools: the caller\'s whole tree, messages to any member by name, wait_agent'"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand cancel" -l lock-timeout -d 'Longest wait for an inbox lock, in seconds (commands that write an inbox)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand cancel" -l max-pending -d 'Admission bound for sends: pending messages an inbox may hold before a send is rejected' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand cancel" -l json -d 'Print JSON instead of text (errors too, on stderr)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand cancel" -l no-cache -d 'Resolve v2 names by scanning the store, without the name index in the cache directory'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand cancel" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand spawn" -l parent -d 'Parent Session id or unique prefix; omit to create a root' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand spawn" -l name -d 'Agent name (1-64 of [A-Za-z0-9._-], not "lead", "." or "..", unique among siblings)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand spawn" -l label -d 'Creation label (the description list_agents shows)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand spawn" -l mode -d 'Child mode' -r -f -a "continuable\t''
one-shot\t''
external\t'An external execution (descriptor version 3; contract v2 only)'"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand spawn" -l prompt -d 'The initial prompt, recorded as the first turn' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand spawn" -l id -d 'Session id [default: a random UUID]' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand spawn" -l created-at -d 'Creation time in epoch milliseconds [default: now]' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand spawn" -l cwd -d 'Project directory (absolute); children inherit the parent\'s by default' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand spawn" -l compression -d 'Encoding for a new store (an existing store keeps its own)' -r -f -a "none\t''
zstd\t''"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand spawn" -l provider -d 'Subagent provider recorded in the descriptor' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand spawn" -l format-version -d 'Log format generation to write: 0 (DSH 0.1.0-rc.8, session.jsonl) to 4 (session.v4.jsonl) [default: the store\'s newest, else 0]' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand spawn" -l store -d 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]' -r -f -a "(__fish_complete_directories)"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand spawn" -l contract -d 'Which tool contract model tools speak (list-agents, send-message, call, …)' -r -f -a "v1\t'The tools DSH 0.1.0-rc.8 ships, byte for byte: agents by Session id, a parent messages its direct children'
v2\t'Name-addressed tools: the caller\'s whole tree, messages to any member by name, wait_agent'"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand spawn" -l lock-timeout -d 'Longest wait for an inbox lock, in seconds (commands that write an inbox)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand spawn" -l max-pending -d 'Admission bound for sends: pending messages an inbox may hold before a send is rejected' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand spawn" -l json -d 'Print JSON instead of text (errors too, on stderr)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand spawn" -l no-cache -d 'Resolve v2 names by scanning the store, without the name index in the cache directory'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand spawn" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand completions" -l store -d 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]' -r -f -a "(__fish_complete_directories)"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand completions" -l contract -d 'Which tool contract model tools speak (list-agents, send-message, call, …)' -r -f -a "v1\t'The tools DSH 0.1.0-rc.8 ships, byte for byte: agents by Session id, a parent messages its direct children'
v2\t'Name-addressed tools: the caller\'s whole tree, messages to any member by name, wait_agent'"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand completions" -l lock-timeout -d 'Longest wait for an inbox lock, in seconds (commands that write an inbox)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand completions" -l max-pending -d 'Admission bound for sends: pending messages an inbox may hold before a send is rejected' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand completions" -l json -d 'Print JSON instead of text (errors too, on stderr)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand completions" -l no-cache -d 'Resolve v2 names by scanning the store, without the name index in the cache directory'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand completions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand man" -l store -d 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]' -r -f -a "(__fish_complete_directories)"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand man" -l contract -d 'Which tool contract model tools speak (list-agents, send-message, call, …)' -r -f -a "v1\t'The tools DSH 0.1.0-rc.8 ships, byte for byte: agents by Session id, a parent messages its direct children'
v2\t'Name-addressed tools: the caller\'s whole tree, messages to any member by name, wait_agent'"
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand man" -l lock-timeout -d 'Longest wait for an inbox lock, in seconds (commands that write an inbox)' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand man" -l max-pending -d 'Admission bound for sends: pending messages an inbox may hold before a send is rejected' -r
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand man" -l json -d 'Print JSON instead of text (errors too, on stderr)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand man" -l no-cache -d 'Resolve v2 names by scanning the store, without the name index in the cache directory'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand man" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand help; and not __fish_seen_subcommand_from list-agents send-message subagent-send-message subagent-parent-message interrupt-agent wait-agent call followup steer interrupt serve bridge inbox claim identity tree top events watch check log trace export usage fleet cancel spawn completions man help" -f -a "list-agents" -d 'list_agents: v2 lists the caller\'s whole tree; v1 lists children or descendants'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand help; and not __fish_seen_subcommand_from list-agents send-message subagent-send-message subagent-parent-message interrupt-agent wait-agent call followup steer interrupt serve bridge inbox claim identity tree top events watch check log trace export usage fleet cancel spawn completions man help" -f -a "send-message" -d 'send_message: v2 any member of the caller\'s tree by name or id; v1 a direct child by id'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand help; and not __fish_seen_subcommand_from list-agents send-message subagent-send-message subagent-parent-message interrupt-agent wait-agent call followup steer interrupt serve bridge inbox claim identity tree top events watch check log trace export usage fleet cancel spawn completions man help" -f -a "subagent-send-message" -d 'subagent_send_message: a parent to one of its direct continuable children, by id'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand help; and not __fish_seen_subcommand_from list-agents send-message subagent-send-message subagent-parent-message interrupt-agent wait-agent call followup steer interrupt serve bridge inbox claim identity tree top events watch check log trace export usage fleet cancel spawn completions man help" -f -a "subagent-parent-message" -d 'subagent_parent_message: a child to its direct parent'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand help; and not __fish_seen_subcommand_from list-agents send-message subagent-send-message subagent-parent-message interrupt-agent wait-agent call followup steer interrupt serve bridge inbox claim identity tree top events watch check log trace export usage fleet cancel spawn completions man help" -f -a "interrupt-agent" -d 'interrupt_agent: stop a descendant\'s current turn (v2 by name or id; v1 by id)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand help; and not __fish_seen_subcommand_from list-agents send-message subagent-send-message subagent-parent-message interrupt-agent wait-agent call followup steer interrupt serve bridge inbox claim identity tree top events watch check log trace export usage fleet cancel spawn completions man help" -f -a "wait-agent" -d 'wait_agent (v2): wait for new next-step input in the caller\'s own inbox'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand help; and not __fish_seen_subcommand_from list-agents send-message subagent-send-message subagent-parent-message interrupt-agent wait-agent call followup steer interrupt serve bridge inbox claim identity tree top events watch check log trace export usage fleet cancel spawn completions man help" -f -a "call" -d 'Run a model tool by name with its raw JSON arguments'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand help; and not __fish_seen_subcommand_from list-agents send-message subagent-send-message subagent-parent-message interrupt-agent wait-agent call followup steer interrupt serve bridge inbox claim identity tree top events watch check log trace export usage fleet cancel spawn completions man help" -f -a "followup" -d 'Deliver a message as the user to AGENT\'s next turn'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand help; and not __fish_seen_subcommand_from list-agents send-message subagent-send-message subagent-parent-message interrupt-agent wait-agent call followup steer interrupt serve bridge inbox claim identity tree top events watch check log trace export usage fleet cancel spawn completions man help" -f -a "steer" -d 'Deliver a message as the user to AGENT\'s next step'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand help; and not __fish_seen_subcommand_from list-agents send-message subagent-send-message subagent-parent-message interrupt-agent wait-agent call followup steer interrupt serve bridge inbox claim identity tree top events watch check log trace export usage fleet cancel spawn completions man help" -f -a "interrupt" -d 'Interrupt AGENT\'s current turn as the user'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand help; and not __fish_seen_subcommand_from list-agents send-message subagent-send-message subagent-parent-message interrupt-agent wait-agent call followup steer interrupt serve bridge inbox claim identity tree top events watch check log trace export usage fleet cancel spawn completions man help" -f -a "serve" -d 'Hold AGENT live and run CMD once per turn with the claimed messages on stdin'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand help; and not __fish_seen_subcommand_from list-agents send-message subagent-send-message subagent-parent-message interrupt-agent wait-agent call followup steer interrupt serve bridge inbox claim identity tree top events watch check log trace export usage fleet cancel spawn completions man help" -f -a "bridge" -d 'Companion of one DSH process: holds its agents live and hands it their messages (JSON lines on stdin/stdout)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand help; and not __fish_seen_subcommand_from list-agents send-message subagent-send-message subagent-parent-message interrupt-agent wait-agent call followup steer interrupt serve bridge inbox claim identity tree top events watch check log trace export usage fleet cancel spawn completions man help" -f -a "inbox" -d 'Show AGENT\'s pending next-step and next-turn messages and parked state'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand help; and not __fish_seen_subcommand_from list-agents send-message subagent-send-message subagent-parent-message interrupt-agent wait-agent call followup steer interrupt serve bridge inbox claim identity tree top events watch check log trace export usage fleet cancel spawn completions man help" -f -a "claim" -d 'Consume pending input as the agent loop does at a step boundary; print it as JSON'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand help; and not __fish_seen_subcommand_from list-agents send-message subagent-send-message subagent-parent-message interrupt-agent wait-agent call followup steer interrupt serve bridge inbox claim identity tree top events watch check log trace export usage fleet cancel spawn completions man help" -f -a "identity" -d 'Print what the caller is told of itself: its name, who delegated it, its tree\'s root'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand help; and not __fish_seen_subcommand_from list-agents send-message subagent-send-message subagent-parent-message interrupt-agent wait-agent call followup steer interrupt serve bridge inbox claim identity tree top events watch check log trace export usage fleet cancel spawn completions man help" -f -a "tree" -d 'Every tree in the store (or the one holding AGENT): hierarchy, state, last turn, pending inbox, tokens'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand help; and not __fish_seen_subcommand_from list-agents send-message subagent-send-message subagent-parent-message interrupt-agent wait-agent call followup steer interrupt serve bridge inbox claim identity tree top events watch check log trace export usage fleet cancel spawn completions man help" -f -a "top" -d 'The tree live in a terminal: each agent\'s log, inbox, usage and traces beside it, and followup, steer, interrupt and cancel on keys'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand help; and not __fish_seen_subcommand_from list-agents send-message subagent-send-message subagent-parent-message interrupt-agent wait-agent call followup steer interrupt serve bridge inbox claim identity tree top events watch check log trace export usage fleet cancel spawn completions man help" -f -a "events" -d 'State transitions, one line each: turns started and finished, agents becoming running, idle or inactive, problems, stale messages'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand help; and not __fish_seen_subcommand_from list-agents send-message subagent-send-message subagent-parent-message interrupt-agent wait-agent call followup steer interrupt serve bridge inbox claim identity tree top events watch check log trace export usage fleet cancel spawn completions man help" -f -a "watch" -d 'Budgets on subtrees in tokens or money: an event at 80%, and at 100% an event or an interrupt of every running agent in the subtree'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand help; and not __fish_seen_subcommand_from list-agents send-message subagent-send-message subagent-parent-message interrupt-agent wait-agent call followup steer interrupt serve bridge inbox claim identity tree top events watch check log trace export usage fleet cancel spawn completions man help" -f -a "check" -d 'Verify the whole store; report every problem with its path'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand help; and not __fish_seen_subcommand_from list-agents send-message subagent-send-message subagent-parent-message interrupt-agent wait-agent call followup steer interrupt serve bridge inbox claim identity tree top events watch check log trace export usage fleet cancel spawn completions man help" -f -a "log" -d 'Show AGENT\'s transcript: each turn, what the model saw and did, and how the turn ended'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand help; and not __fish_seen_subcommand_from list-agents send-message subagent-send-message subagent-parent-message interrupt-agent wait-agent call followup steer interrupt serve bridge inbox claim identity tree top events watch check log trace export usage fleet cancel spawn completions man help" -f -a "trace" -d 'Show where a message went: sent, claimed, in the transcript, or why not'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand help; and not __fish_seen_subcommand_from list-agents send-message subagent-send-message subagent-parent-message interrupt-agent wait-agent call followup steer interrupt serve bridge inbox claim identity tree top events watch check log trace export usage fleet cancel spawn completions man help" -f -a "export" -d 'The tree as OpenTelemetry traces (OTLP/JSON to a file or stdout, OTLP/HTTP to a collector)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand help; and not __fish_seen_subcommand_from list-agents send-message subagent-send-message subagent-parent-message interrupt-agent wait-agent call followup steer interrupt serve bridge inbox claim identity tree top events watch check log trace export usage fleet cancel spawn completions man help" -f -a "usage" -d 'Tokens each agent\'s model calls used (and their cost, given prices)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand help; and not __fish_seen_subcommand_from list-agents send-message subagent-send-message subagent-parent-message interrupt-agent wait-agent call followup steer interrupt serve bridge inbox claim identity tree top events watch check log trace export usage fleet cancel spawn completions man help" -f -a "fleet" -d 'Agents on many hosts, over NATS JetStream: the hub, a host\'s daemon, its status'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand help; and not __fish_seen_subcommand_from list-agents send-message subagent-send-message subagent-parent-message interrupt-agent wait-agent call followup steer interrupt serve bridge inbox claim identity tree top events watch check log trace export usage fleet cancel spawn completions man help" -f -a "cancel" -d 'Withdraw a pending message before it is delivered'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand help; and not __fish_seen_subcommand_from list-agents send-message subagent-send-message subagent-parent-message interrupt-agent wait-agent call followup steer interrupt serve bridge inbox claim identity tree top events watch check log trace export usage fleet cancel spawn completions man help" -f -a "spawn" -d 'Create a session (a root, or a child with --parent) and print its id'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand help; and not __fish_seen_subcommand_from list-agents send-message subagent-send-message subagent-parent-message interrupt-agent wait-agent call followup steer interrupt serve bridge inbox claim identity tree top events watch check log trace export usage fleet cancel spawn completions man help" -f -a "completions" -d 'Print shell completions'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand help; and not __fish_seen_subcommand_from list-agents send-message subagent-send-message subagent-parent-message interrupt-agent wait-agent call followup steer interrupt serve bridge inbox claim identity tree top events watch check log trace export usage fleet cancel spawn completions man help" -f -a "man" -d 'Print the man page (roff), of the tool or of one command'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand help; and not __fish_seen_subcommand_from list-agents send-message subagent-send-message subagent-parent-message interrupt-agent wait-agent call followup steer interrupt serve bridge inbox claim identity tree top events watch check log trace export usage fleet cancel spawn completions man help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand help; and __fish_seen_subcommand_from fleet" -f -a "config" -d 'Write the hub\'s nats-server configurations, one NKey per host (and admin.nk) and fleet.json'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand help; and __fish_seen_subcommand_from fleet" -f -a "init" -d 'Create the hub\'s streams, buckets and per-host consumers (idempotent)'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand help; and __fish_seen_subcommand_from fleet" -f -a "run" -d 'Serve this store as a host of the fleet: forward its outbox, take its mail into inboxes, keep receipts'
complete -c dsh-agents -n "__fish_dsh_agents_using_subcommand help; and __fish_seen_subcommand_from fleet" -f -a "status" -d 'The fleet as this host last saw it: hosts and when each was last seen, the outbox, every cross-host send and how far it got'
