/*
 * librdmacm (rdma-core 44) + rxe when the only device is deleted, in C, without rdmacm4j
 * (docs/architecture.md, "When the last device goes"). Run by last-device-loss.sh in the guest.
 *
 *   last-device-loss plain    connect, rdma link delete rxe0, destroy everything: the delete
 *                             still waits (librdmacm keeps its context), rdma link add fails
 *   last-device-loss fdtrick  the same, then dup2(/dev/null) over the context's cmd_fd and
 *                             async_fd: the delete completes, rxe0 is added back and a new
 *                             connection is made in the same process
 */
#define _GNU_SOURCE
#include <rdma/rdma_cma.h>
#include <infiniband/verbs.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static struct timespec t0;
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return (t.tv_sec-t0.tv_sec)*1e3+(t.tv_nsec-t0.tv_nsec)/1e6;}
#define LOG(...) do{printf("[%8.1f ms] ",now());printf(__VA_ARGS__);printf("\n");fflush(stdout);}while(0)

static pid_t spawn(char *const argv[]){pid_t p=fork();if(!p){execvp(argv[0],argv);_exit(127);}return p;}
static int waitfor(pid_t p,int ms){int st;for(int i=0;i<ms/50;i++){pid_t r=waitpid(p,&st,WNOHANG);if(r==p)return WIFEXITED(st)?WEXITSTATUS(st):128+WTERMSIG(st);usleep(50000);}return -1;}
static int run(int ms,char *const argv[]){pid_t p=spawn(argv);int r=waitfor(p,ms);if(r<0){kill(p,9);waitpid(p,NULL,0);}return r;}

static struct sockaddr_in addr(const char*ip,int port){struct sockaddr_in a={0};a.sin_family=AF_INET;a.sin_port=htons(port);inet_pton(AF_INET,ip,&a.sin_addr);return a;}

static struct rdma_cm_event *next_event(struct rdma_event_channel*ch,int ms){
  struct pollfd p={ch->fd,POLLIN,0};
  if(poll(&p,1,ms)<=0)return NULL;
  struct rdma_cm_event*e; if(rdma_get_cm_event(ch,&e)){LOG("rdma_get_cm_event: %s",strerror(errno));return NULL;}
  return e;
}

static int ndev(void){int n=-1;struct ibv_device**l=ibv_get_device_list(&n);if(l)ibv_free_device_list(l);return n;}

static struct rdma_cm_id *L,*C,*S;
static int connect_pair(struct rdma_event_channel*ch,int port){
  S=NULL; struct sockaddr_in la=addr("192.0.2.1",port), ca=addr("192.0.2.3",0);
  if(rdma_create_id(ch,&L,NULL,RDMA_PS_TCP)){LOG("create L: %s",strerror(errno));return -1;}
  if(rdma_bind_addr(L,(void*)&la)){LOG("bind L: %s",strerror(errno));return -1;}
  if(rdma_listen(L,8)){LOG("listen: %s",strerror(errno));return -1;}
  rdma_create_id(ch,&C,NULL,RDMA_PS_TCP);
  if(rdma_resolve_addr(C,(void*)&ca,(void*)&la,2000)){LOG("resolve_addr: %s",strerror(errno));return -1;}
  struct ibv_qp_init_attr qa={.cap={.max_send_wr=4,.max_recv_wr=4,.max_send_sge=1,.max_recv_sge=1},.qp_type=IBV_QPT_RC};
  for(int i=0;i<10;i++){
    struct rdma_cm_event*e=next_event(ch,5000); if(!e){LOG("no event");return -1;}
    LOG("event %s status %d id %p",rdma_event_str(e->event),e->status,(void*)e->id);
    enum rdma_cm_event_type t=e->event; struct rdma_cm_id*id=e->id;
    rdma_ack_cm_event(e);
    if(t==RDMA_CM_EVENT_ADDR_RESOLVED){LOG("client verbs %p",(void*)C->verbs);rdma_resolve_route(C,2000);}
    else if(t==RDMA_CM_EVENT_ROUTE_RESOLVED){struct ibv_qp_init_attr q=qa;if(rdma_create_qp(C,NULL,&q))LOG("qp C: %s",strerror(errno));struct rdma_conn_param cp={.responder_resources=1,.initiator_depth=1,.retry_count=7,.rnr_retry_count=7};rdma_connect(C,&cp);}
    else if(t==RDMA_CM_EVENT_CONNECT_REQUEST){S=id;struct ibv_qp_init_attr q=qa;if(rdma_create_qp(S,NULL,&q))LOG("qp S: %s",strerror(errno));struct rdma_conn_param cp={.responder_resources=1,.initiator_depth=1};rdma_accept(S,&cp);}
    else if(t==RDMA_CM_EVENT_ESTABLISHED && id==C){LOG("connected on verbs %p (%s)",(void*)C->verbs,ibv_get_device_name(C->verbs->device));return 0;}
    else if(t!=RDMA_CM_EVENT_ESTABLISHED){return -1;}
  }
  return -1;
}

int main(int argc,char**argv){
  clock_gettime(CLOCK_MONOTONIC,&t0);
  const char*mode=argc>1?argv[1]:"plain";
  LOG("mode %s, devices listed %d",mode,ndev());
  struct rdma_event_channel*ch=rdma_create_event_channel();
  if(connect_pair(ch,20000)){LOG("first connect failed");return 2;}
  int n; struct ibv_context**devs=rdma_get_devices(&n);
  struct ibv_context*ctx=devs[0]; int cmdfd=ctx->cmd_fd, asyncfd=ctx->async_fd;
  LOG("rdma_get_devices: %d, ctx %p cmd_fd %d async_fd %d",n,(void*)ctx,cmdfd,asyncfd);
  char*del[]={"rdma","link","delete","rxe0",NULL};
  pid_t dp=spawn(del); LOG("rdma link delete rxe0 started (pid %d)",dp);
  int removals=0;
  for(int i=0;i<10 && removals<3;i++){struct rdma_cm_event*e=next_event(ch,5000);if(!e){LOG("no more events");break;}
    LOG("event %s status %d",rdma_event_str(e->event),e->status); if(e->event==RDMA_CM_EVENT_DEVICE_REMOVAL)removals++; rdma_ack_cm_event(e);}
  LOG("devices listed now: %d; delete exit %d (-1 = still running)",ndev(),waitfor(dp,100));
  LOG("destroying the QPs and ids");
  rdma_destroy_qp(C); rdma_destroy_qp(S);
  LOG("destroy C %d S %d L %d",rdma_destroy_id(C),rdma_destroy_id(S),rdma_destroy_id(L));
  rdma_free_devices(devs);
  LOG("delete exit after 3 s: %d",waitfor(dp,3000));
  int gn=-1; struct ibv_context**g=rdma_get_devices(&gn); LOG("rdma_get_devices now: %p count %d errno %s",(void*)g,gn,strerror(errno)); if(g)rdma_free_devices(g);
  struct rdma_cm_id*x; int r=rdma_create_id(ch,&x,NULL,RDMA_PS_TCP); LOG("rdma_create_id: %d %s",r,r?strerror(errno):"");
  if(!r){struct sockaddr_in a=addr("192.0.2.1",20001); r=rdma_bind_addr(x,(void*)&a); LOG("rdma_bind_addr 192.0.2.1: %d %s",r,r?strerror(errno):"");
    struct sockaddr_in b=addr("192.0.2.1",20001); struct rdma_cm_id*y; rdma_create_id(ch,&y,NULL,RDMA_PS_TCP); r=rdma_resolve_addr(y,NULL,(void*)&b,500); LOG("rdma_resolve_addr: %d %s",r,r?strerror(errno):"");
    struct rdma_cm_event*e=next_event(ch,2000); if(e){LOG("event %s status %d",rdma_event_str(e->event),e->status);rdma_ack_cm_event(e);}
    rdma_destroy_id(y); rdma_destroy_id(x);}
  char*add[]={"rdma","link","add","rxe0","type","rxe","netdev","veth0",NULL};
  LOG("rdma link add rxe0 while the delete is pending: exit %d",run(20000,add));
  if(!strcmp(mode,"fdtrick")){
    int nul=open("/dev/null",O_RDWR|O_CLOEXEC);
    LOG("dup2 /dev/null over cmd_fd %d: %d; async_fd %d: %d",cmdfd,dup2(nul,cmdfd),asyncfd,dup2(nul,asyncfd)); close(nul);
  }
  LOG("delete exit within 10 s: %d",waitfor(dp,10000));
  LOG("rdma link add rxe0: exit %d",run(20000,add));
  for(int i=0;i<100;i++){ if(ndev()>0)break; usleep(100000);} sleep(2);
  LOG("devices listed: %d",ndev());
  g=rdma_get_devices(&gn); LOG("rdma_get_devices: count %d",gn); if(g){for(int i=0;i<gn;i++)LOG("  ctx %p %s",(void*)g[i],ibv_get_device_name(g[i]->device));rdma_free_devices(g);}
  LOG("second connect: %s",connect_pair(ch,20002)?"FAILED":"ok");
  LOG("done");
  return 0;
}
