3graph [
 directed 1
 node [ id 0 label "A" ]
 node [ id 1 label "B&amp;" ]
 edge [ source 0 target 1 weight 0.5 ]
]
