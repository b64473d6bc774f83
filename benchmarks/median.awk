# median.awk - shared by the benchmarks' run.sh scripts (awk -f benchmarks/median.awk -f PROGRAM).
# sorted_median(TEXT, ARR): splits the space-separated numbers of TEXT into ARR[1..m], sorts them
# ascending and returns their median (so ARR[1] and ARR[m] are the min and the max).
function sorted_median(text, arr,    m, i, j, t) {
    m = split(text, arr, " ")
    for (i = 2; i <= m; i++) { t = arr[i]; for (j = i - 1; j >= 1 && arr[j] > t; j--) arr[j + 1] = arr[j]; arr[j + 1] = t }
    return (m % 2) ? arr[(m + 1) / 2] : (arr[m / 2] + arr[m / 2 + 1]) / 2
}
