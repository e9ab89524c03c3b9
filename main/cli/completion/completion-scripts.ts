/**
 * The shell completion scripts `contactor completion <shell>` prints, made from the command tree
 * (command-tree.ts). Each does the same: the first word that is not an option is the verb; an option
 * completes from that verb's options and the global ones; the word after the verb completes its own verbs
 * or, where it takes an agent, the agent names `contactor __complete-agents` reads from the config (no
 * bridge, no network: it never makes a shell wait).
 */
import { AGENTS_HELPER, type CompletionTree } from './command-tree.js';

export const SHELLS = ['bash', 'zsh', 'fish', 'powershell'] as const;
export type Shell = (typeof SHELLS)[number];

/** Verbs and flags go into the scripts as bare words: anything else would need quoting in four languages. */
const WORD = /^[A-Za-z0-9][-A-Za-z0-9_]*$|^--?[A-Za-z0-9][-A-Za-z0-9_]*$/;

function words(list: readonly string[]): string {
  for (const w of list) if (!WORD.test(w)) throw new Error(`not a plain word for a completion script: ${w}`);
  return list.join(' ');
}

interface Parts {
  verbs: string;
  global: string;
  withValue: string[];
  /** Verb → its options and the global ones. */
  options: [string, string][];
  /** Verb → its own verbs. */
  subVerbs: [string, string][];
  agentVerbs: string[];
}

function partsOf(tree: CompletionTree): Parts {
  const global = words(tree.topLevel);
  return {
    verbs: words(tree.verbs.map((v) => v.name)),
    global,
    withValue: tree.globalWithValue,
    options: tree.verbs.map((v) => [v.name, words([...new Set([...v.options, ...tree.global])])]),
    subVerbs: tree.verbs.filter((v) => v.verbs.length > 0).map((v) => [v.name, words(v.verbs)]),
    agentVerbs: tree.verbs.filter((v) => v.takesAgent).map((v) => v.name),
  };
}

export function completionScript(shell: Shell, tree: CompletionTree): string {
  const parts = partsOf(tree);
  switch (shell) {
    case 'bash':
      return bash(parts);
    case 'zsh':
      return zsh(parts);
    case 'fish':
      return fish(parts);
    case 'powershell':
      return powershell(parts);
    default: {
      const never: never = shell;
      return never;
    }
  }
}

function bash(p: Parts): string {
  return `# contactor completion for bash: \`source <(contactor completion bash)\` in ~/.bashrc
_contactor() {
  local cur=\${COMP_WORDS[COMP_CWORD]} verb= n=0 i w words=
  for ((i = 1; i < COMP_CWORD; i++)); do
    w=\${COMP_WORDS[i]}
    case $w in
      ${p.withValue.join('|')}) ((i++)) ;;
      -*) ;;
      *) if [[ -z $verb ]]; then verb=$w; else n=$((n + 1)); fi ;;
    esac
  done
  if [[ $cur == -* ]]; then
    case $verb in
${p.options.map(([v, o]) => `      ${v}) words='${o}' ;;`).join('\n')}
      *) words='${p.global}' ;;
    esac
  elif [[ -z $verb ]]; then
    words='${p.verbs}'
  elif ((n == 0)); then
    case $verb in
${p.subVerbs.map(([v, s]) => `      ${v}) words='${s}' ;;`).join('\n')}
      ${p.agentVerbs.join('|')}) words=$(contactor ${AGENTS_HELPER} 2>/dev/null) ;;
    esac
  fi
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -F _contactor contactor
`;
}

function zsh(p: Parts): string {
  return `#compdef contactor
# contactor completion for zsh: \`source <(contactor completion zsh)\` in ~/.zshrc after compinit,
# or save it as _contactor in a folder of $fpath
_contactor() {
  local cur=\${words[CURRENT]} verb= w
  local -i n=0 i
  local -a cands
  for ((i = 2; i < CURRENT; i++)); do
    w=\${words[i]}
    case $w in
      (${p.withValue.join('|')}) ((i++)) ;;
      (-*) ;;
      (*) if [[ -z $verb ]]; then verb=$w; else n=$((n + 1)); fi ;;
    esac
  done
  if [[ $cur == -* ]]; then
    case $verb in
${p.options.map(([v, o]) => `      (${v}) cands=(${o}) ;;`).join('\n')}
      (*) cands=(${p.global}) ;;
    esac
  elif [[ -z $verb ]]; then
    cands=(${p.verbs})
  elif ((n == 0)); then
    case $verb in
${p.subVerbs.map(([v, s]) => `      (${v}) cands=(${s}) ;;`).join('\n')}
      (${p.agentVerbs.join('|')}) cands=(\${(f)"$(contactor ${AGENTS_HELPER} 2>/dev/null)"}) ;;
    esac
  fi
  compadd -- $cands
}
if [[ \${zsh_eval_context[-1]} == loadautofunc ]]; then
  _contactor "$@"
else
  compdef _contactor contactor
fi
`;
}

function fish(p: Parts): string {
  return `# contactor completion for fish: \`contactor completion fish > ~/.config/fish/completions/contactor.fish\`
function __contactor_complete
    set -l tokens (commandline -opc)
    set -l cur (commandline -ct)
    set -l verb
    set -l n 0
    set -l skip 0
    for w in $tokens[2..-1]
        if test $skip -eq 1
            set skip 0
            continue
        end
        switch $w
            case ${p.withValue.join(' ')}
                set skip 1
            case '-*'
            case '*'
                if test -z "$verb"
                    set verb $w
                else
                    set n (math $n + 1)
                end
        end
    end
    if string match -q -- '-*' $cur
        switch "$verb"
${p.options.map(([v, o]) => `            case ${v}\n                printf '%s\\n' ${o}`).join('\n')}
            case '*'
                printf '%s\\n' ${p.global}
        end
    else if test -z "$verb"
        printf '%s\\n' ${p.verbs}
    else if test $n -eq 0
        switch $verb
${p.subVerbs.map(([v, s]) => `            case ${v}\n                printf '%s\\n' ${s}`).join('\n')}
            case ${p.agentVerbs.join(' ')}
                contactor ${AGENTS_HELPER} 2>/dev/null
        end
    end
end
complete -c contactor -f -a '(__contactor_complete)'
`;
}

function powershell(p: Parts): string {
  const list = (s: string) =>
    `@(${s
      .split(' ')
      .map((w) => `'${w}'`)
      .join(', ')})`;
  return `# contactor completion for PowerShell: add \`contactor completion powershell | Out-String | Invoke-Expression\` to $PROFILE
Register-ArgumentCompleter -Native -CommandName contactor, contactor.exe -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)
    $before = @($commandAst.CommandElements | Where-Object { $_.Extent.EndOffset -lt $cursorPosition } | ForEach-Object { $_.ToString() })
    $verb = $null
    $n = 0
    $skip = $false
    foreach ($w in ($before | Select-Object -Skip 1)) {
        if ($skip) { $skip = $false }
        elseif ($w -in ${list(p.withValue.join(' '))}) { $skip = $true }
        elseif ($w -like '-*') { }
        elseif (-not $verb) { $verb = $w }
        else { $n++ }
    }
    $candidates = @()
    if ($wordToComplete -like '-*') {
        $candidates = ${list(p.global)}
${p.options.map(([v, o]) => `        if ($verb -eq '${v}') { $candidates = ${list(o)} }`).join('\n')}
    }
    elseif (-not $verb) { $candidates = ${list(p.verbs)} }
    elseif ($n -eq 0) {
${p.subVerbs.map(([v, s]) => `        if ($verb -eq '${v}') { $candidates = ${list(s)} }`).join('\n')}
        if ($verb -in ${list(p.agentVerbs.join(' '))}) { $candidates = @(contactor ${AGENTS_HELPER} 2>$null) }
    }
    $candidates | Where-Object { $_ -like "$wordToComplete*" } | ForEach-Object {
        [System.Management.Automation.CompletionResult]::new($_, $_, 'ParameterValue', $_)
    }
}
`;
}
