package cli

// The completion scripts ask `streamtap __complete WORD... CURRENT` what
// may stand in the place of CURRENT (see complete): the candidates, one a
// line, then ":files" or ":dirs" when the shell should add file names. All
// the knowledge is in the binary, so a script never goes stale; what each
// script does is split the command line as its shell does and hand the
// answer back to its completion system.

// bashCompletion splits the line up to the cursor on blanks only (bash
// would also split sample:NAME and --flag=VALUE at the colon and the equals
// sign, COMP_WORDBREAKS), then trims from each candidate the part of the
// word bash does not replace.
const bashCompletion = `# bash completion for streamtap. Load it with
#   source <(streamtap completion bash)
_streamtap() {
    local line=${COMP_LINE:0:COMP_POINT}
    local -a words
    read -r -a words <<< "$line"
    local cur=""
    if [[ $line != *[[:blank:]] ]]; then
        cur=${words[${#words[@]}-1]}
        unset 'words[${#words[@]}-1]'
    fi
    local out
    out=$(command streamtap __complete "${words[@]:1}" "$cur" 2>/dev/null) || return 0
    local word=${COMP_WORDS[COMP_CWORD]}
    local strip=0
    if [[ $cur == *"$word" ]]; then
        strip=$(( ${#cur} - ${#word} ))
    fi
    COMPREPLY=()
    local c q directive=""
    while IFS= read -r c; do
        case $c in
            :files) directive=files ;;
            :dirs) directive=dirs ;;
            :*) ;;
            ?*)
                [[ $c == *= ]] && compopt -o nospace 2>/dev/null
                printf -v q '%q' "${c:strip}"
                COMPREPLY+=("$q")
                ;;
        esac
    done <<< "$out"
    if [[ -n $directive ]]; then
        compopt -o filenames 2>/dev/null
        local f
        while IFS= read -r f; do
            [[ -n $f ]] && COMPREPLY+=("$f")
        done < <(if [[ $directive == dirs ]]; then compgen -d -- "$word"; else compgen -f -- "$word"; fi)
    fi
    return 0
}
complete -F _streamtap streamtap
`

// zshCompletion hands the candidates to compadd (those that end in "=",
// RULE= of --severity, without the space after them) and the files to
// _files.
const zshCompletion = `#compdef streamtap
# zsh completion for streamtap. Load it, after compinit, with
#   source <(streamtap completion zsh)
_streamtap() {
  local -a lines cands eq
  local line directive=""
  lines=("${(@f)$(command streamtap __complete "${(@)words[2,CURRENT-1]}" "${words[CURRENT]}" 2>/dev/null)}")
  for line in "${lines[@]}"; do
    case $line in
      (:files) directive=files ;;
      (:dirs) directive=dirs ;;
      (:*) ;;
      (*=) eq+=("$line") ;;
      (?*) cands+=("$line") ;;
    esac
  done
  (( ${#cands} )) && compadd -- "${cands[@]}"
  (( ${#eq} )) && compadd -S '' -- "${eq[@]}"
  case $directive in
    (files) _files ;;
    (dirs) _files -/ ;;
  esac
  return 0
}
if (( $+functions[compdef] )); then
  compdef _streamtap streamtap
fi
`

// fishCompletion prints the candidates for complete -a, and lets fish list
// the files.
const fishCompletion = `# fish completion for streamtap. Load it with
#   streamtap completion fish | source
function __streamtap_complete
    set -l words (commandline -opc)
    set -l cur (commandline -ct)
    set -e words[1]
    for line in (command streamtap __complete $words "$cur" 2>/dev/null)
        switch $line
            case ':files'
                __fish_complete_path "$cur"
            case ':dirs'
                __fish_complete_directories "$cur"
            case ':*'
            case '*'
                echo $line
        end
    end
end
complete -c streamtap -e
complete -c streamtap -f -a '(__streamtap_complete)'
`
