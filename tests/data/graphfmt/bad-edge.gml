graph [
  directed 1
  node [ id 0 label "asia" ]
  edge [ source 0 target 7 ]
]
