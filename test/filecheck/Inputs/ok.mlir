tile.func @ok(%A: !tile.array<4xf32>) outs(%C: !tile.array<4xf32>) {
  %a = tile.load %A : !tile.array<4xf32> -> !tile.tile<4xf32>
  %n = tile.neg %a : !tile.tile<4xf32>
  tile.store %n, %C : !tile.tile<4xf32>, !tile.array<4xf32>
  tile.return
}
