
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
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'Which tool contract to speak')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the canonical JSON value instead of the rendered text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('list-agents', 'list-agents', [CompletionResultType]::ParameterValue, 'list_agents: v2 lists the caller''s whole tree; v1 lists children or descendants')
            [CompletionResult]::new('call', 'call', [CompletionResultType]::ParameterValue, 'Run a model tool by name with its raw JSON arguments')
            [CompletionResult]::new('identity', 'identity', [CompletionResultType]::ParameterValue, 'Print the subagent:identity runtime context for the caller (seed 001)')
            [CompletionResult]::new('tree', 'tree', [CompletionResultType]::ParameterValue, 'Table of every tree (or the one holding AGENT)')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Verify the whole store; report every problem with its path')
            [CompletionResult]::new('spawn', 'spawn', [CompletionResultType]::ParameterValue, 'Create a session (a root, or a child with --parent) and print its id')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print shell completions')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'dsh-agents;list-agents' {
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'The calling agent: a Session id or a unique prefix (>= 4 characters)')
            [CompletionResult]::new('--scope', '--scope', [CompletionResultType]::ParameterName, 'v1 only: children (default) or descendants')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'Which tool contract to speak')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the canonical JSON value instead of the rendered text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'dsh-agents;call' {
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'The calling agent: a Session id or a unique prefix (>= 4 characters)')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'Which tool contract to speak')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the canonical JSON value instead of the rendered text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'dsh-agents;identity' {
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'The calling agent: a Session id or a unique prefix (>= 4 characters)')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'Which tool contract to speak')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the canonical JSON value instead of the rendered text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'dsh-agents;tree' {
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'Which tool contract to speak')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the canonical JSON value instead of the rendered text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'dsh-agents;check' {
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'Which tool contract to speak')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the canonical JSON value instead of the rendered text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'dsh-agents;spawn' {
            [CompletionResult]::new('--parent', '--parent', [CompletionResultType]::ParameterName, 'Parent Session id or unique prefix; omit to create a root')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'Agent name (1-64 of [A-Za-z0-9._-], not "lead", unique among siblings)')
            [CompletionResult]::new('--label', '--label', [CompletionResultType]::ParameterName, 'Creation label (the description list_agents shows)')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'Child mode')
            [CompletionResult]::new('--prompt', '--prompt', [CompletionResultType]::ParameterName, 'The initial prompt, recorded as the first turn')
            [CompletionResult]::new('--id', '--id', [CompletionResultType]::ParameterName, 'Session id [default: a random UUID]')
            [CompletionResult]::new('--created-at', '--created-at', [CompletionResultType]::ParameterName, 'Creation time in epoch milliseconds [default: now]')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Project directory (absolute); children inherit the parent''s by default')
            [CompletionResult]::new('--compression', '--compression', [CompletionResultType]::ParameterName, 'Encoding for a new store (an existing store keeps its own)')
            [CompletionResult]::new('--provider', '--provider', [CompletionResultType]::ParameterName, 'Subagent provider recorded in the descriptor')
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'Which tool contract to speak')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the canonical JSON value instead of the rendered text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'dsh-agents;completions' {
            [CompletionResult]::new('--store', '--store', [CompletionResultType]::ParameterName, 'Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]')
            [CompletionResult]::new('--contract', '--contract', [CompletionResultType]::ParameterName, 'Which tool contract to speak')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the canonical JSON value instead of the rendered text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'dsh-agents;help' {
            [CompletionResult]::new('list-agents', 'list-agents', [CompletionResultType]::ParameterValue, 'list_agents: v2 lists the caller''s whole tree; v1 lists children or descendants')
            [CompletionResult]::new('call', 'call', [CompletionResultType]::ParameterValue, 'Run a model tool by name with its raw JSON arguments')
            [CompletionResult]::new('identity', 'identity', [CompletionResultType]::ParameterValue, 'Print the subagent:identity runtime context for the caller (seed 001)')
            [CompletionResult]::new('tree', 'tree', [CompletionResultType]::ParameterValue, 'Table of every tree (or the one holding AGENT)')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Verify the whole store; report every problem with its path')
            [CompletionResult]::new('spawn', 'spawn', [CompletionResultType]::ParameterValue, 'Create a session (a root, or a child with --parent) and print its id')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print shell completions')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'dsh-agents;help;list-agents' {
            break
        }
        'dsh-agents;help;call' {
            break
        }
        'dsh-agents;help;identity' {
            break
        }
        'dsh-agents;help;tree' {
            break
        }
        'dsh-agents;help;check' {
            break
        }
        'dsh-agents;help;spawn' {
            break
        }
        'dsh-agents;help;completions' {
            break
        }
        'dsh-agents;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
