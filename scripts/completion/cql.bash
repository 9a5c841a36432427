# scripts/completion/cql.bash — bash completion for cql. `make install` puts
# it in PREFIX/share/bash-completion/completions/cql; or `. cql.bash` by hand.
# The option names come from `cql -help` (of the cql being completed), so that
# they stay those of the program; the values some options take are known here.
# SPDX-License-Identifier: GPL-3.0-or-later

_cql()
{
    local cmd=$1 cur=$2 prev=$3 word
    COMPREPLY=()
    # after -summary-merge every word is a file of -summary json lines
    for word in "${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
        word=${word#-}
        word=$(printf '%s' "${word#-}" | tr '[:upper:]' '[:lower:]')
        if [ "$word" = summary-merge ] || [ "$word" = summarymerge ]; then
            COMPREPLY=($(compgen -f -- "$cur"))
            return
        fi
    done
    # an option's name, with one or two hyphens, in any case
    local option=${prev#-}
    option=${option#-}
    option=$(printf '%s' "$option" | tr '[:upper:]' '[:lower:]')
    case $prev in
    -*)
        case $option in
        i|input)
            # PGN files (also compressed) and directories
            COMPREPLY=($(compgen -d -- "$cur") $(compgen -f -X '!*.@(pgn|PGN|pgn.gz|pgn.bz2|pgn.xz|pgn.zst)' -- "$cur"))
            return ;;
        o|output|similarposition)
            COMPREPLY=($(compgen -f -- "$cur"))
            return ;;
        queries|outdir)
            # a directory (of query files; for the output files)
            COMPREPLY=($(compgen -d -- "$cur"))
            return ;;
        result)
            COMPREPLY=($(compgen -W '1-0 0-1 1/2-1/2' -- "$cur"))
            return ;;
        summary)
            COMPREPLY=($(compgen -W 'text json' -- "$cur"))
            return ;;
        matches)
            # the records' file: its extension names the form
            COMPREPLY=($(compgen -d -- "$cur") $(compgen -f -X '!*.@(jsonl|json|tsv|epd)' -- "$cur"))
            return ;;
        matchformat)
            COMPREPLY=($(compgen -W 'jsonl tsv epd' -- "$cur"))
            return ;;
        report)
            COMPREPLY=($(compgen -d -- "$cur") $(compgen -f -X '!*.@(html|htm)' -- "$cur"))
            return ;;
        hhdb)
            COMPREPLY=($(compgen -W "info $("$cmd" -hhdb info 2>/dev/null | sed -n 's/^  //p')" -- "$cur"))
            return ;;
        cql|g|gamenumber|matchcount|matchstring|player|white|black|event|site|year|fen|assign|limit|threads|part|maxgamesize|lineincrement|searchposition|reportlimit)
            return ;;   # a value of the user's own
        esac ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$("$cmd" -help 2>/dev/null | sed -n 's/^  \(-[^ ,]*\)\(, \(-[^ ]*\)\)\{0,1\}.*/\1 \3/p')" -- "$cur"))
    else
        # the query files (several are searched in one pass)
        COMPREPLY=($(compgen -d -- "$cur") $(compgen -f -X '!*.cql' -- "$cur"))
    fi
}
shopt -s extglob 2>/dev/null
complete -o filenames -F _cql cql
